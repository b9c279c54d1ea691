"""mlir_to_bef(): a BEF file converted from MLIR text by //tools:mlir-to-bef
at build time, as users make theirs."""

def mlir_to_bef(name, src, out, **kwargs):
    """Genrule `name` writing `out` (a .bef) from `src` (a .mlir)."""
    native.genrule(
        name = name,
        srcs = [src],
        outs = [out],
        cmd = "$(location //tools:mlir-to-bef) $< -o $@",
        tools = ["//tools:mlir-to-bef"],
        **kwargs
    )
