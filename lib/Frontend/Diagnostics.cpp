//===- Diagnostics.cpp - clang-style diagnostics for the tile DSL --------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "lib/Frontend/Diagnostics.h"

#include "llvm/Support/raw_ostream.h"

#include "tilec/Vocabulary.h"

#include <algorithm>
#include <array>

using namespace tilec::frontend;

DiagnosticEngine::DiagnosticEngine(llvm::SourceMgr &sourceMgr,
                                   llvm::raw_ostream &os, unsigned errorLimit)
    : sourceMgr(sourceMgr), os(os), errorLimit(errorLimit) {}

DiagnosticEngine::~DiagnosticEngine() { flush(); }

void DiagnosticEngine::flush() {
  std::stable_sort(
      groups.begin(), groups.end(),
      [](const Group &a, const Group &b) { return a.key < b.key; });
  for (const Group &group : groups)
    os << group.text;
  groups.clear();
  os.flush();
}

std::string &DiagnosticEngine::startGroup(llvm::SMLoc loc) {
  // Diagnostics without a place (command-line options) come first.
  uintptr_t key =
      loc.isValid() ? reinterpret_cast<uintptr_t>(loc.getPointer()) : 0;
  groups.push_back({key, std::string()});
  return groups.back().text;
}

bool DiagnosticEngine::countError() {
  ++numErrors;
  if (numErrors <= errorLimit) {
    lastSuppressed = false;
    return true;
  }
  lastSuppressed = true;
  if (numErrors == errorLimit + 1) {
    printWithoutLocation(llvm::SourceMgr::DK_Error,
                         "too many errors emitted, stopping now");
    groups.back().key = UINTPTR_MAX; // after all the others
    lastSuppressed = true;
  }
  return false;
}

void DiagnosticEngine::print(llvm::SMRange range,
                             llvm::SourceMgr::DiagKind kind,
                             const llvm::Twine &message,
                             llvm::ArrayRef<llvm::SMFixIt> fixIts) {
  llvm::SmallVector<llvm::SMRange, 1> ranges;
  // A range is only underlined on the caret's line; one that ends on another
  // line gets just the caret.
  if (range.isValid() && range.Start != range.End)
    ranges.push_back(range);
  std::string &text = kind == llvm::SourceMgr::DK_Note && !groups.empty()
                          ? groups.back().text
                          : startGroup(range.Start);
  llvm::raw_string_ostream stream(text);
  sourceMgr.PrintMessage(stream, range.Start, kind, message, ranges, fixIts,
                         os.has_colors());
}

void DiagnosticEngine::error(llvm::SMRange range, const llvm::Twine &message) {
  if (countError())
    print(range, llvm::SourceMgr::DK_Error, message);
}

void DiagnosticEngine::errorWithFixIt(llvm::SMRange range,
                                      const llvm::Twine &message,
                                      llvm::StringRef replacement) {
  if (!countError())
    return;
  llvm::SMFixIt fixIt(range, replacement);
  print(range, llvm::SourceMgr::DK_Error, message, fixIt);
}

void DiagnosticEngine::printWithoutLocation(llvm::SourceMgr::DiagKind kind,
                                            const llvm::Twine &message) {
  // "file.tile: error: message", for what belongs to no line (a -D option).
  llvm::StringRef file;
  unsigned mainID = sourceMgr.getMainFileID();
  if (mainID != 0 && mainID <= sourceMgr.getNumBuffers())
    file = sourceMgr.getMemoryBuffer(mainID)->getBufferIdentifier();
  std::string &text = kind == llvm::SourceMgr::DK_Note && !groups.empty()
                          ? groups.back().text
                          : startGroup(llvm::SMLoc());
  llvm::raw_string_ostream stream(text);
  llvm::SMDiagnostic(file, kind, message.str())
      .print(nullptr, stream, os.has_colors());
}

void DiagnosticEngine::error(const llvm::Twine &message) {
  if (countError())
    printWithoutLocation(llvm::SourceMgr::DK_Error, message);
}

void DiagnosticEngine::warning(llvm::SMRange range,
                               const llvm::Twine &message) {
  lastSuppressed = tooManyErrors();
  if (!lastSuppressed)
    print(range, llvm::SourceMgr::DK_Warning, message);
}

void DiagnosticEngine::note(llvm::SMRange range, const llvm::Twine &message) {
  if (!lastSuppressed)
    print(range, llvm::SourceMgr::DK_Note, message);
}

void DiagnosticEngine::note(const llvm::Twine &message) {
  if (!lastSuppressed)
    printWithoutLocation(llvm::SourceMgr::DK_Note, message);
}

llvm::StringRef
tilec::frontend::closestName(llvm::StringRef name,
                             llvm::ArrayRef<llvm::StringRef> candidates) {
  // Allow one edit in a short name, two (a transposition) from four
  // characters on, and about one in three characters in a long one.
  unsigned allowed =
      name.size() < 4 ? 1 : std::max<unsigned>(2, name.size() / 3);
  unsigned best = allowed + 1;
  llvm::StringRef bestName;
  for (llvm::StringRef candidate : candidates) {
    if (candidate == name || candidate.empty())
      continue;
    unsigned distance = name.edit_distance(candidate, /*AllowReplacements=*/
                                           true, /*MaxEditDistance=*/best);
    // A different case alone is always a plausible typo.
    if (name.equals_insensitive(candidate))
      distance = 0;
    if (distance < best) {
      best = distance;
      bestName = candidate;
    }
  }
  return bestName;
}

std::string
tilec::frontend::didYouMean(llvm::StringRef name,
                            llvm::ArrayRef<llvm::StringRef> candidates) {
  llvm::StringRef closest = closestName(name, candidates);
  if (closest.empty())
    return "";
  return ("; did you mean '" + closest + "'?").str();
}

std::string
tilec::frontend::joinChoices(llvm::ArrayRef<llvm::StringRef> choices,
                             llvm::StringRef lastSeparator) {
  std::string result;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (i != 0)
      result += i + 1 == choices.size() ? lastSeparator.str() : ", ";
    result += choices[i].str();
  }
  return result;
}

llvm::ArrayRef<llvm::StringRef> tilec::frontend::targetNames() {
  static const auto names = [] {
    std::array<llvm::StringRef, tilec::vocab::kAllTargets.size()> out;
    for (size_t i = 0; i < out.size(); ++i) {
      std::string_view name =
          tilec::vocab::toString(tilec::vocab::kAllTargets[i]);
      out[i] = llvm::StringRef(name.data(), name.size());
    }
    return out;
  }();
  return names;
}
