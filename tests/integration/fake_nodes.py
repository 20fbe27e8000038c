"""Several "nodes" on one machine, for the multi-node tests: each node is a network namespace
with its own host name (a UTS namespace per process started in it), joined to the others by
a veth pair on a bridge, on a private test subnet (10.213.x.0/24). MPICH's hydra starts its
proxies in them through a launcher wrapper (`mpiexec -launcher ssh -launcher-exec WRAPPER`
runs `WRAPPER -x HOST COMMAND`), so MPI sees separate hosts and talks between them over TCP.

Nothing is made in the machine's own network namespace: the bridge lives in a "switch"
namespace and mpiexec runs in a "head" namespace (the subnet's first address, under the
machine's host name), both joined to the bridge like the nodes. Links appearing and going in
the root namespace would race every other process there that lists the network devices:
MPICH's UCX enumerates them in MPI_Init and fails ("init_worker No such device") when one
goes in between, so the other tests running beside this one would fail at random. Each
namespace's /etc/hosts (ip netns exec binds /etc/netns/NS/hosts over /etc/hosts) names the
machine and every node. With `private_dir`, each node also gets a mount namespace in which
that folder is its own (PATH.nodes/HOST bound over PATH): node-local disks.

Needs root (CAP_SYS_ADMIN, CAP_NET_ADMIN), `ip` and `unshare`; `unavailable()` says why
not, in one line. Everything made is removed on exit, also after a failure, and anything a
killed earlier run with the same tag left behind is removed first.

    with FakeNodes(["nodea", "nodeb"]) as nodes:
        subprocess.run([*nodes.mpiexec(ppn=2), "runner", "r.lua"])
"""
import os
import shutil
import socket
import subprocess
import tempfile


def _sh(*args, check=True):
    return subprocess.run(list(args), capture_output=True, text=True, check=check)


def unavailable():
    """Why namespaces can't be made here (one line), or None when they can."""
    if os.geteuid() != 0:
        return "simulated nodes need root (network, UTS and mount namespaces, a bridge); not root here"
    for tool in ("ip", "unshare", "mpiexec"):
        if not shutil.which(tool):
            return f"simulated nodes need `{tool}`, which is not installed"
    probe = f"rnprobe{os.getpid() % 100000}"
    r = _sh("ip", "netns", "add", probe, check=False)
    if r.returncode != 0:
        return f"`ip netns add` was refused: {r.stderr.strip()}"
    try:
        r = _sh("ip", "netns", "exec", probe, "unshare", "--uts", "--mount", "true", check=False)
        if r.returncode != 0:
            return f"`unshare --uts --mount` inside a network namespace was refused: {r.stderr.strip()}"
        r = _sh("ip", "-n", probe, "link", "add", "rnpb", "type", "bridge", check=False)
        if r.returncode != 0:
            return f"`ip link add … type bridge` was refused: {r.stderr.strip()}"
    finally:
        _sh("ip", "netns", "del", probe, check=False)
    return None


class FakeNodes:
    def __init__(self, hosts, private_dir=None, tag=None):
        self.hosts = list(hosts)
        self.private_dir = private_dir
        self.tag = tag if tag is not None else 20 + os.getpid() % 200  # one subnet per test process
        self.subnet = f"10.213.{self.tag}"
        self.switch = f"rn{self.tag}-switch"  # holds the bridge
        self.head = f"rn{self.tag}-head"  # where mpiexec runs, as the machine
        self.tmp = None

    def namespace(self, host):
        return f"rn{self.tag}-{host}"

    def node_dir(self, host):
        """The folder that is `private_dir` on `host`."""
        return f"{self.private_dir}.nodes/{host}"

    def __enter__(self):
        try:
            self._create()
        except BaseException:
            self._destroy()
            raise
        return self

    def __exit__(self, *exc):
        self._destroy()

    def _namespaces(self):
        return [self.switch, self.head] + [self.namespace(h) for h in self.hosts]

    def _join(self, ns, port, address, hosts):
        """Namespace `ns` on the bridge (its eth0 at `address`), naming everyone in its /etc/hosts."""
        _sh("ip", "netns", "add", ns)
        _sh("ip", "-n", self.switch, "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", ns)
        _sh("ip", "-n", self.switch, "link", "set", port, "master", "br0", "up")
        _sh("ip", "-n", ns, "addr", "add", f"{address}/24", "dev", "eth0")
        _sh("ip", "-n", ns, "link", "set", "eth0", "up")
        _sh("ip", "-n", ns, "link", "set", "lo", "up")
        os.makedirs(f"/etc/netns/{ns}", exist_ok=True)
        with open(f"/etc/netns/{ns}/hosts", "w") as f:
            f.write("\n".join(hosts) + "\n")

    def _create(self):
        self._destroy()  # leftovers of a run that was killed
        self.tmp = tempfile.mkdtemp(prefix="runner_nodes_")
        _sh("ip", "netns", "add", self.switch)
        _sh("ip", "-n", self.switch, "link", "add", "br0", "type", "bridge")
        _sh("ip", "-n", self.switch, "link", "set", "br0", "up")
        me = socket.gethostname()
        hosts = ["127.0.0.1 localhost", f"{self.subnet}.1 {me}"]
        hosts += [f"{self.subnet}.{10 + i} {h}" for i, h in enumerate(self.hosts)]
        self._join(self.head, "head", f"{self.subnet}.1", hosts)
        for i, host in enumerate(self.hosts):
            self._join(self.namespace(host), f"node{i}", f"{self.subnet}.{10 + i}", hosts)
            if self.private_dir:
                os.makedirs(self.node_dir(host), exist_ok=True)
        if self.private_dir:
            os.makedirs(self.private_dir, exist_ok=True)
        # hydra: WRAPPER -x HOST "COMMAND ARGS" (words quoted for a remote shell)
        bind = f'mount --bind "{self.private_dir}.nodes/$host" "{self.private_dir}"; ' if self.private_dir else ""
        self.wrapper = os.path.join(self.tmp, "launch-on-node")
        with open(self.wrapper, "w") as f:
            f.write("#!/bin/sh\n"
                    "# Starts a hydra proxy on a simulated node: its network namespace, its own host name.\n"
                    '[ "$1" = "-x" ] && shift\n'
                    'host=$1; shift\n'
                    f'exec ip netns exec "rn{self.tag}-$host" unshare --uts --mount sh -c "hostname $host; {bind}exec $*"\n')
        os.chmod(self.wrapper, 0o755)

    def _destroy(self):
        # A namespace's links go with it (the veth pairs with either end), all out of sight of
        # the machine's own namespace.
        for ns in self._namespaces():
            _sh("ip", "netns", "del", ns, check=False)
            shutil.rmtree(f"/etc/netns/{ns}", ignore_errors=True)
        if self.tmp:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = None

    def mpiexec(self, ppn, n=None):
        """The mpiexec command line that starts `ppn` ranks on each node (n in all)."""
        n = n if n is not None else ppn * len(self.hosts)
        return ["ip", "netns", "exec", self.head, shutil.which("mpiexec"), "-launcher", "ssh", "-launcher-exec", self.wrapper,
                "-hosts", ",".join(self.hosts), "-ppn", str(ppn), "-n", str(n)]

    def leftovers(self):
        """Namespaces and files of this set still present (empty after exit)."""
        left = [ns for ns in _sh("ip", "netns", "list").stdout.split() if ns.startswith(f"rn{self.tag}-")]
        left += [f"/etc/netns/{ns}" for ns in self._namespaces() if os.path.exists(f"/etc/netns/{ns}")]
        return left

    @staticmethod
    def root_links():
        """The machine's own network devices (which the nodes never change)."""
        return sorted(line.split(":")[1].strip().split("@")[0] for line in _sh("ip", "-o", "link").stdout.splitlines())
