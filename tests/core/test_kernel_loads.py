"""An installed kernel loads: a refusal would put every path on pure Polars silently."""

from __future__ import annotations

from polars_rankk.core.kernel import loader as native


def test_an_installed_kernel_reads_every_policy_field() -> None:
    """The kernel's self-check sends ``Policy()``: a Policy field the kernel's ``Policy``
    (``native/src/config.rs``) does not declare, and that ``APPLIED_IN_POLARS`` does not keep
    from it, makes the kernel refuse every call, and every path would then run on pure Polars
    silently (the kernel's own tests only skip). Not installed, or switched off: nothing to
    check."""
    status = native.status()
    if status.loaded:
        return
    assert "keyword arguments" not in status.reason, status.reason
    assert "self-check" not in status.reason, status.reason
