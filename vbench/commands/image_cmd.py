"""`vbench image build|status|prune`: the guest image of container and VM hosts."""

from __future__ import annotations

import shutil

from vbench.testbed.image import DEFAULT_RECIPE, build_image, image_for


def register(sub) -> None:
    p = sub.add_parser("image", help="the Debian guest image of lxc, oci and qemu hosts (debootstrap, cached)")
    p.add_argument(
        "action",
        choices=("build", "status", "prune"),
        help="build: once per recipe (minutes); status: is it built; prune: remove images of other recipes",
    )
    p.add_argument("--force", action="store_true", help="build: rebuild even if the cache holds it")
    p.add_argument(
        "--mirror", metavar="URL", help="build: the Debian mirror to debootstrap from (default: the host's apt sources)"
    )
    p.set_defaults(func=run)


def run(args) -> int:
    img = image_for(DEFAULT_RECIPE)
    if args.action == "build":
        build_image(DEFAULT_RECIPE, force=args.force, mirror=args.mirror)
        return 0
    if args.action == "status":
        info = img.info()
        if not img.exists():
            print(f"guest image {img.hash}: not built ({img.home}); `vbench image build` builds it")
            return 1
        print(
            f"guest image {img.hash}: built {info.get('built_at', '?')} from {info.get('mirror', '?')} in "
            f"{info.get('build_seconds', '?')} s; kernel {info.get('kernel', '?')}; {img.home}"
        )
        return 0
    removed = []
    for other in sorted(img.home.parent.glob("*")):
        if other.is_dir() and other.name != img.hash:
            shutil.rmtree(other)
            removed.append(other.name)
    print(f"removed images {', '.join(removed)}" if removed else "no other images")
    return 0
