"""A private Slurm cluster for the tests, on this machine: munged, slurmctld and two slurmd
("nodes" n1 and n2, 4 CPUs each) from Debian's packages, every file and socket in one
temporary folder, on free ports; torn down (daemons killed, folder removed) on exit.
Needs root (slurmd starts jobs as their user) and the packages scripts/setup installs
(slurmctld, slurmd, slurm-client, munge); `unavailable()` says why not, for a visible skip."""
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "srun", "scontrol")


def unavailable():
    """None when a cluster can be made here, else a one-line reason."""
    missing = [d for d in DAEMONS if not shutil.which(d) and not os.path.exists(f"/usr/sbin/{d}")]
    if missing:
        return "Slurm is not installed (missing: " + ", ".join(missing) + "; scripts/setup installs slurmctld slurmd slurm-client munge)"
    if os.geteuid() != 0:
        return "slurmd needs root to start jobs; this test runs as uid " + str(os.geteuid())
    return None


def free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def tool(name):
    return shutil.which(name) or f"/usr/sbin/{name}"


class FakeSlurm:
    def __enter__(self):
        self.dir = tempfile.mkdtemp(prefix="runner_slurm_")
        d = self.dir
        for sub in ("state", "spool/n1", "spool/n2", "log", "munge"):
            os.makedirs(os.path.join(d, sub), exist_ok=True)
        os.chmod(os.path.join(d, "munge"), 0o700)
        key = os.path.join(d, "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        self.munge_socket = os.path.join(d, "munge", "munge.sock")
        self.pids = []
        subprocess.run([tool("munged"), f"--key-file={key}", f"--socket={self.munge_socket}", f"--pid-file={d}/munge/munged.pid",
                        f"--log-file={d}/munge/munged.log", f"--seed-file={d}/munge/seed", "--force"], check=True, capture_output=True)
        self.pid_files = [f"{d}/munge/munged.pid"]
        host = socket.gethostname()
        ctld, slurmd, n1, n2 = free_ports(4)
        self.conf = os.path.join(d, "slurm.conf")
        with open(self.conf, "w") as f:
            f.write(f"""ClusterName=runnertest
SlurmctldHost={host}
SlurmctldPort={ctld}
SlurmdPort={slurmd}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# cred_expire: a requeued job may start this many seconds (+1) after it ended (default 120)
AuthInfo=socket={self.munge_socket},cred_expire=5
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool/%n
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd-%n.pid
SlurmctldLogFile={d}/log/slurmctld.log
SlurmdLogFile={d}/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=pmi2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
ReturnToService=2
SlurmdParameters=config_overrides
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=2
KillWait=10
NodeName=n1 NodeHostname={host} Port={n1} CPUs=4 RealMemory=1000 State=UNKNOWN
NodeName=n2 NodeHostname={host} Port={n2} CPUs=4 RealMemory=1000 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
""")
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        try:
            subprocess.run([tool("slurmctld"), "-f", self.conf, "-i"], check=True, capture_output=True, env=self.env)
            self.pid_files.append(f"{d}/slurmctld.pid")
            for node in ("n1", "n2"):
                subprocess.run([tool("slurmd"), "-f", self.conf, "-N", node], check=True, capture_output=True, env=self.env)
                self.pid_files.append(f"{d}/slurmd-{node}.pid")
            deadline = time.time() + 60
            while time.time() < deadline:
                r = subprocess.run(["sinfo", "-h", "-o", "%T %D"], capture_output=True, text=True, env=self.env)
                if r.stdout.split() == ["idle", "2"]:
                    return self
                time.sleep(0.3)
            raise RuntimeError("the test's Slurm nodes never became idle:\n" + self.log())
        except BaseException:
            self.__exit__(None, None, None)
            raise

    def log(self):
        text = ""
        for name in ("slurmctld.log", "slurmd-n1.log", "slurmd-n2.log"):
            path = os.path.join(self.dir, "log", name)
            if os.path.exists(path):
                with open(path) as f:
                    text += f"--- {name}\n" + "".join(f.readlines()[-20:])
        return text

    def run(self, *cmd, timeout=300, **kw):
        return subprocess.run(list(cmd), capture_output=True, text=True, env=self.env, timeout=timeout, **kw)

    def job(self, job_id):
        """scontrol's fields of a job, as a dict."""
        r = self.run("scontrol", "show", "job", "-o", str(job_id))
        return dict(word.split("=", 1) for word in r.stdout.split() if "=" in word)

    def wait_for(self, job_id, timeout=600):
        deadline = time.time() + timeout
        while time.time() < deadline:
            state = self.job(job_id).get("JobState", "")
            if state in ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"):
                return self.job(job_id)
            time.sleep(0.5)
        raise AssertionError(f"job {job_id} did not end in {timeout} s: {self.job(job_id)}\n{self.log()}")

    def __exit__(self, *exc):
        for path in reversed(self.pid_files):
            try:
                with open(path) as f:
                    os.kill(int(f.read().strip()), signal.SIGTERM)
            except (OSError, ValueError):
                pass
        time.sleep(0.5)
        shutil.rmtree(self.dir, ignore_errors=True)
