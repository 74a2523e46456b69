"""--define NAME=VALUE for the Python benches: a variant of a kernel family's
spec, compiled from the defines instead of the library's configuration."""


def spec_variant(items, family: str) -> None:
    """--define NAME=VALUE items: spec params over tilec.deep_gemm's for the
    kernels of `family` (a variant of its spec), by wrapping the kernel
    cache's lookup."""
    if not items:
        return
    from tilec import _cache
    extra = dict(item.split("=", 1) for item in items)
    get_kernel = _cache.get_kernel

    def with_defines(name, defines=(), device=None, problem=None):
        if name == family:
            defines = tuple(sorted({**dict(defines), **extra}.items()))
            # A variant is not the library's configuration of the problem:
            # it is compiled from its defines.
            problem = None
        return get_kernel(name, defines, device, problem)
    _cache.get_kernel = with_defines
    print(f"spec variant: {extra}")
