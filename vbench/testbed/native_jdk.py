"""Which JDK a local testbed's native hosts run (`hadoop.jdk`): the machine's, at `hadoop.java_home`, or
the guest image's, the build its container and VM hosts run (vbench.testbed.image.image_java_home),
so that a platform comparison can compare one JVM build. Read where a local testbed's Hadoop params
are made: a campaign's configurations (vbench.campaign.runner.params_for) and `vbench cluster`."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from vbench.errors import ParamsError
from vbench.params import HadoopParams, TestbedParams
from vbench.testbed.image import image_java_home


def native_jdk(hp: HadoopParams, tb: TestbedParams, image_home: Callable[[str], Path] | None = None) -> HadoopParams:
    """`hp` with the java_home a local testbed's native hosts run: the guest image's JDK where
    `hadoop.jdk: image` asks for it (`image_home` maps the guest's java_home to where this machine
    sees it; by default in the built image, refused if it is not built), else as it was. A cluster
    mixing native and guest hosts is refused with it: its one java_home cannot name both trees."""
    if hp.jdk == "host":
        return hp
    platforms = {str(h.platform) for h in tb.resolved_hosts()}
    if "native" not in platforms:
        return hp  # container and VM hosts run the image's JDK already
    if platforms != {"native"}:
        raise ParamsError(
            "hadoop.jdk",
            f"image on a cluster of {', '.join(sorted(platforms))} hosts: one java_home cannot name the "
            "image's JDK both on the machine and inside the guests; give native hosts their own cluster",
        )
    return hp.model_copy(update={"java_home": (image_home or image_java_home)(str(hp.java_home))})
