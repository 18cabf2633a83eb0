"""An S3-compatible object store on loopback: SeaweedFS, for the tests and the S3 quick start.

Built once by ``tools/s3/setup.sh`` (cached under ``~/.cache/hudi-sql/seaweedfs``); a machine where
it could not be built has an ``UNAVAILABLE`` file there saying why, and the tests that need the
store skip with that reason. The server keeps its data in a folder of the caller's, answers S3
on a loopback port with one access key and one bucket, and is stopped by its process id.

Run it by hand for the README's S3 quick start::

    python -m tools.s3.seaweedfs --port 8333 --dir DIR    # objects kept in DIR; Ctrl-C stops it
    python -m tools.s3.seaweedfs --port 8333 --detach     # in the background, once it serves
    python -m tools.s3.seaweedfs --port 8333 --stop       # stop the one --detach started
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


VERSION = os.environ.get("HUDI_SEAWEEDFS_VERSION", "v0.0.0-20261109003541-7506e5f91cd6")
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "hudi-sql" / "seaweedfs" / VERSION
ACCESS_KEY, SECRET_KEY = "hudi-sql-test", "hudi-sql-test-secret"
BUCKET = "lake"


def unavailable_reason() -> str | None:
    """Why the store cannot start here, or ``None`` when its binary is built."""
    if (CACHE / "weed").is_file():
        return None
    marker = CACHE / "UNAVAILABLE"
    return marker.read_text().strip() if marker.is_file() else f"SeaweedFS not built: run bash tools/s3/setup.sh ({CACHE})"


@dataclass
class ObjectStoreServer:
    """A running SeaweedFS with an S3 endpoint and one bucket, :data:`BUCKET`."""

    process: subprocess.Popen[Any]
    port: int
    log: Path
    metrics_port: int = 0

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def hadoop_keys(self) -> dict[str, str]:
        """Hadoop's S3A keys for this store, as a Spark user sets them (prefix ``spark.hadoop.``)."""
        return {"spark.hadoop.fs.s3a.endpoint": self.endpoint,
                "spark.hadoop.fs.s3a.access.key": ACCESS_KEY,
                "spark.hadoop.fs.s3a.secret.key": SECRET_KEY,
                "spark.hadoop.fs.s3a.path.style.access": "true"}

    @property
    def rust_storage_options(self) -> dict[str, str]:
        """The same store as the Rust reader ``hudi`` (object_store's keys) is told of it."""
        return {"aws_endpoint_url": self.endpoint, "aws_access_key_id": ACCESS_KEY,
                "aws_secret_access_key": SECRET_KEY, "aws_region": "us-east-1", "aws_allow_http": "true"}

    def filesystem(self) -> Any:
        """pyarrow's own client of the store: the tests look at the bucket through it, not through hudi-sql."""
        from pyarrow import fs

        return fs.S3FileSystem(access_key=ACCESS_KEY, secret_key=SECRET_KEY, endpoint_override=f"127.0.0.1:{self.port}",
                               scheme="http", region="us-east-1", force_virtual_addressing=False)

    def keys_under(self, prefix: str) -> list[str]:
        from pyarrow import fs

        infos = self.filesystem().get_file_info(fs.FileSelector(f"{BUCKET}/{prefix}", allow_not_found=True,
                                                                recursive=True))
        return sorted(i.path[len(BUCKET) + 1:] for i in infos if i.type == fs.FileType.File)

    def request_counts(self) -> dict[str, int]:
        """S3 requests served so far, by kind (``GET`` counts HEAD too; ``POST`` is multipart upload
        steps), from the server's own Prometheus counters: what the store billed, not what a
        client believes it sent."""
        import urllib.request

        with urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=10) as reply:
            text = reply.read().decode()
        counts: dict[str, int] = {}
        for line in text.splitlines():
            if line.startswith("SeaweedFS_s3_request_total{"):
                labels, _, value = line.rpartition(" ")
                kind = labels.split('type="', 1)[1].split('"', 1)[0]
                counts[kind] = counts.get(kind, 0) + int(float(value))
        return counts

    def stop(self) -> None:
        """Kill the server and its process group at once: its data is a temporary folder, and a
        graceful SeaweedFS shutdown takes ~20 s of flushing nobody needs."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=10)


def start_object_store(folder: Path, *, port: int | None = None, timeout: float = 60.0) -> ObjectStoreServer:
    """Start SeaweedFS (master, volume, filer and S3 in one process) in *folder* and create the
    bucket; S3 on *port* (a free one by default)."""
    from pyarrow import fs

    data = folder / "data"
    data.mkdir(parents=True, exist_ok=True)
    identities = folder / "s3.json"
    identities.write_text(json.dumps({"identities": [{
        "name": "tests", "credentials": [{"accessKey": ACCESS_KEY, "secretKey": SECRET_KEY}],
        "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}))
    ports = {name: free_port() for name in ("master", "volume", "filer", "metrics")} | {"s3": port or free_port()}
    grpc = {name: free_port() for name in ("master", "volume", "filer", "s3")}
    log = folder / "weed.log"
    command = [str(CACHE / "weed"), "server", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", f"-dir={data}",
               f"-master.port={ports['master']}", f"-master.port.grpc={grpc['master']}",
               f"-volume.port={ports['volume']}", f"-volume.port.grpc={grpc['volume']}",
               "-volume.max=0", "-master.volumeSizeLimitMB=64",
               "-filer", f"-filer.port={ports['filer']}", f"-filer.port.grpc={grpc['filer']}",
               "-s3", f"-s3.port={ports['s3']}", f"-s3.port.grpc={grpc['s3']}", f"-s3.config={identities}",
               f"-metricsPort={ports['metrics']}"]
    with open(log, "wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True)
    server = ObjectStoreServer(process, ports["s3"], log, ports["metrics"])
    deadline = time.monotonic() + timeout
    error: Exception | None = None
    while time.monotonic() < deadline:  # ready when the bucket can be made (master, volume and filer all up)
        if process.poll() is not None:
            raise RuntimeError(f"SeaweedFS exited ({process.returncode}):\n{log.read_text()[-3000:]}")
        try:
            client = fs.S3FileSystem(access_key=ACCESS_KEY, secret_key=SECRET_KEY, scheme="http",
                                     endpoint_override=f"127.0.0.1:{ports['s3']}", region="us-east-1",
                                     allow_bucket_creation=True, force_virtual_addressing=False,
                                     connect_timeout=1, request_timeout=2)
            client.create_dir(BUCKET)
            with client.open_output_stream(f"{BUCKET}/.ready") as out:
                out.write(b"ok")
            client.delete_file(f"{BUCKET}/.ready")
            return server
        except OSError as exc:
            error = exc
            time.sleep(0.3)
    server.stop()
    raise RuntimeError(f"SeaweedFS did not serve S3 within {timeout}s ({error}):\n{log.read_text()[-3000:]}")


def main(argv: list[str] | None = None) -> int:
    import argparse

    home = Path(os.environ.get("HUDI_SQL_HOME") or Path.home() / ".hudi-sql")
    parser = argparse.ArgumentParser(prog="python -m tools.s3.seaweedfs", description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8333, help="the S3 port on 127.0.0.1 (default 8333)")
    parser.add_argument("--dir", default=str(home / "s3"), help="where the objects are kept ($HUDI_SQL_HOME/s3)")
    background = parser.add_mutually_exclusive_group()
    background.add_argument("--detach", action="store_true", help="return once it serves, leaving it running")
    background.add_argument("--stop", action="store_true", help="stop the server --detach started with this --dir")
    args = parser.parse_args(argv)
    pid_file = Path(args.dir) / "weed.pid"
    if args.stop:
        try:
            os.killpg(int(pid_file.read_text()), signal.SIGKILL)
        except (OSError, ValueError) as e:
            print(f"no S3 server started with --detach in {args.dir} runs ({e})")
            return 1
        pid_file.unlink()
        print(f"S3 server in {args.dir} stopped")
        return 0
    reason = unavailable_reason()
    if reason:
        print(reason)
        return 1
    server = start_object_store(Path(args.dir), port=args.port)
    print(f"S3 at {server.endpoint}, bucket '{BUCKET}' (pid {server.process.pid}); Spark settings:")
    for key, value in server.hadoop_keys.items():
        print(f"  --conf {key}={value}")
    if args.detach:
        pid_file.write_text(str(server.process.pid))
        return 0
    try:
        server.process.wait()
    except KeyboardInterrupt:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
