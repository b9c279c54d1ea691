"""golden_repository(): the reference outputs in ../shared/spec/golden.

The golden corpus (BEF bytes, run transcripts and round trips produced by the
reference implementation) lives beside the project checkout, in
shared/spec/golden. This rule symlinks it into @golden so tests can name its
files as data. Set BEF_GOLDEN_DIR to use a copy elsewhere.
"""

def _golden_repository_impl(rctx):
    path = rctx.os.environ.get("BEF_GOLDEN_DIR", "")
    if not path:
        workspace = rctx.path(Label("//:WORKSPACE")).dirname
        path = "%s/%s" % (workspace, rctx.attr.default_path)
    if not rctx.path(path).exists:
        fail("@golden: the golden corpus is not at %s; clone the project " % path +
             "beside shared/ or set BEF_GOLDEN_DIR")
    rctx.symlink(path, "files")
    rctx.symlink(rctx.attr.build_file, "BUILD.bazel")
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)

golden_repository = repository_rule(
    implementation = _golden_repository_impl,
    local = True,
    environ = ["BEF_GOLDEN_DIR"],
    attrs = {
        "default_path": attr.string(mandatory = True),
        "build_file": attr.label(mandatory = True, allow_single_file = True),
    },
)
