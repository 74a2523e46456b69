// In-process PTX compile (nvPTXCompiler) of PTX files, three times each:
// the time, the resource lines of the info log and the cubin (bench/ptx_compile/run.sh).
#include <nvPTXCompiler.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb"); if (!f) return NULL;
  fseek(f, 0, SEEK_END); *n = ftell(f); fseek(f, 0, SEEK_SET);
  char *b = malloc(*n + 1); fread(b, 1, *n, f); b[*n] = 0; fclose(f); return b;
}
int main(int argc, char **argv) {
  for (int a = 1; a < argc; ++a) {
    size_t n; char *ptx = slurp(argv[a], &n);
    for (int rep = 0; rep < 3; ++rep) {
      double t0 = now();
      nvPTXCompilerHandle h;
      if (nvPTXCompilerCreate(&h, n, ptx) != NVPTXCOMPILE_SUCCESS) { printf("create failed\n"); return 1; }
      const char *opts[] = {"--gpu-name=sm_90a", "-O3", "-v", "--warn-on-spills"};
      nvPTXCompileResult r = nvPTXCompilerCompile(h, 4, opts);
      size_t sz = 0; nvPTXCompilerGetCompiledProgramSize(h, &sz);
      char *bin = malloc(sz); nvPTXCompilerGetCompiledProgram(h, bin);
      double t1 = now();
      size_t ls = 0; nvPTXCompilerGetInfoLogSize(h, &ls);
      char *log = malloc(ls + 1); nvPTXCompilerGetInfoLog(h, log); log[ls] = 0;
      size_t es = 0; nvPTXCompilerGetErrorLogSize(h, &es);
      char *err = malloc(es + 1); nvPTXCompilerGetErrorLog(h, err); err[es] = 0;
      printf("%s rep %d: rc %d, %.1f ms, cubin %zu bytes\n", argv[a], rep, (int)r, (t1 - t0) * 1e3, sz);
      if (rep == 0) {
        char *line = strtok(log, "\n");
        while (line) { if (strstr(line, "Used") || strstr(line, "C75") || strstr(line, "spill")) printf("  log: %s\n", line); line = strtok(NULL, "\n"); }
        if (es) printf("  err: %s\n", err);
        char name[256]; snprintf(name, sizeof name, "%s.inproc.cubin", argv[a]);
        FILE *o = fopen(name, "wb"); fwrite(bin, 1, sz, o); fclose(o);
      }
      nvPTXCompilerDestroy(&h); free(bin); free(log); free(err);
    }
  }
  return 0;
}
