//===- tilec-bundle.cpp - Pack, dump and check tilec bundles --------------===//
//
// A small command-line tool over tilec_bundle:
//   tilec-bundle pack -m meta.json [--cubin f.cubin] [--ptx f.ptx] -o out
//   tilec-bundle dump file.tilec     (metadata JSON and section sizes)
//   tilec-bundle check meta.json     (parse and validate metadata)
// `pack` lets scripts and tests build a bundle from a cubin compiled by other
// means (e.g. nvcc) exactly as the compiler would.
//
//===----------------------------------------------------------------------===//

#include "tilec/bundle/Bundle.h"

#include <cstdio>
#include <cstring>
#include <string>

using namespace tilec;

namespace {

int usage() {
  std::fprintf(stderr, "usage: tilec-bundle pack -m META.json [--cubin FILE] "
                       "[--ptx FILE] -o OUT\n"
                       "       tilec-bundle dump BUNDLE\n"
                       "       tilec-bundle check META.json\n");
  return 2;
}

int fail(const std::string &message) {
  std::fprintf(stderr, "tilec-bundle: %s\n", message.c_str());
  return 1;
}

bool readText(const std::string &path, std::string &out, std::string &error) {
  std::vector<uint8_t> bytes;
  if (!bundle::readFile(path, bytes, error))
    return false;
  out.assign(bytes.begin(), bytes.end());
  return true;
}

/// Reads and validates a metadata JSON file. Read errors name the path
/// already; parse errors get it in front.
bool readMetadata(const std::string &path, bundle::Bundle &out,
                  std::string &error) {
  std::string metadata;
  if (!readText(path, metadata, error))
    return false;
  if (bundle::parseMetadataJson(metadata, out, error))
    return true;
  error = path + ": " + error;
  return false;
}

int pack(int argc, char **argv) {
  std::string metadataPath, cubinPath, ptxPath, outputPath;
  for (int i = 2; i < argc; ++i) {
    std::string option = argv[i];
    if (i + 1 >= argc)
      return usage();
    std::string value = argv[++i];
    if (option == "-m" || option == "--metadata")
      metadataPath = value;
    else if (option == "--cubin")
      cubinPath = value;
    else if (option == "--ptx")
      ptxPath = value;
    else if (option == "-o")
      outputPath = value;
    else
      return usage();
  }
  if (metadataPath.empty() || outputPath.empty() ||
      (cubinPath.empty() && ptxPath.empty()))
    return usage();
  std::string error;
  bundle::Bundle result;
  if (!readMetadata(metadataPath, result, error))
    return fail(error);
  if (!cubinPath.empty() && !bundle::readFile(cubinPath, result.cubin, error))
    return fail(error);
  if (!ptxPath.empty() && !readText(ptxPath, result.ptx, error))
    return fail(error);
  if (!bundle::writeBundleFile(result, outputPath, error))
    return fail(error);
  return 0;
}

int dump(const char *path) {
  bundle::Bundle contents;
  std::string error;
  if (!bundle::readBundleFile(path, contents, error))
    return fail(error);
  std::printf("%s", bundle::writeMetadataJson(contents).c_str());
  std::printf("cubin: %zu bytes\nptx: %zu bytes\n", contents.cubin.size(),
              contents.ptx.size());
  return 0;
}

int check(const char *path) {
  std::string error;
  bundle::Bundle contents;
  if (!readMetadata(path, contents, error))
    return fail(error);
  std::printf("%s: %zu kernel(s), target %s: OK\n", path,
              contents.kernels.size(), contents.target.c_str());
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    return usage();
  std::string command = argv[1];
  if (command == "pack")
    return pack(argc, argv);
  if (command == "dump" && argc == 3)
    return dump(argv[2]);
  if (command == "check" && argc == 3)
    return check(argv[2]);
  return usage();
}
