"""--define NAME=VALUE for the Python benches: a variant of a kernel family's
spec, compiled from the defines instead of the library's configuration."""


def variant_defines(family: str) -> dict:
    """Wraps the kernel cache's lookup so that the kernels of `family` are
    compiled with the returned dict's NAME: VALUE pairs over their defines
    (a variant of its spec, not the library's configuration of the
    problem); empty, they are the library's. Change the dict to switch
    variants (bench/paged_ab.py does, per variant)."""
    from tilec import _cache
    extra = {}
    get_kernel = _cache.get_kernel

    def with_defines(name, defines=(), device=None, problem=None):
        if name == family and extra:
            defines = tuple(sorted({**dict(defines), **extra}.items()))
            problem = None  # compiled from its defines
        return get_kernel(name, defines, device, problem)
    _cache.get_kernel = with_defines
    return extra


def spec_variant(items, family: str) -> None:
    """--define NAME=VALUE items: spec params over tilec.deep_gemm's for the
    kernels of `family`."""
    if not items:
        return
    extra = variant_defines(family)
    extra.update(item.split("=", 1) for item in items)
    print(f"spec variant: {extra}")
