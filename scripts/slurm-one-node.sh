#!/usr/bin/env bash
# A one-node SLURM cluster on this machine (Debian/Ubuntu, root, no systemd needed), with accounting
# (slurmdbd + MariaDB) so `sacct` reports what jobs used.
#
#   scripts/slurm-one-node.sh start     install the packages if missing, write the configs, start
#                                       munge, MariaDB, slurmdbd, slurmctld, slurmd; wait until idle
#   scripts/slurm-one-node.sh stop      stop the daemons (by their PID files)
#   scripts/slurm-one-node.sh status    sinfo
#
# Partition `debug` holds this node with every core `slurmd -C` reports. Not for a real cluster:
# there, use the site's SLURM and workflow/profiles/slurm.
set -euo pipefail

CLUSTER=schedrl
ETC=/etc/slurm
SPOOL=/var/spool
LOG=/var/log/slurm

need_root() {
  if [ "$(id -u)" != 0 ]; then echo "slurm-one-node: must run as root" >&2; exit 2; fi
}

install() {
  local missing=()
  for bin in slurmctld slurmd sinfo munged slurmdbd mariadbd; do
    command -v "$bin" >/dev/null 2>&1 || missing+=("$bin")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "slurm-one-node: missing ${missing[*]} and no apt-get to install them" >&2; exit 3
  fi
  echo "slurm-one-node: installing slurm-wlm, munge, slurmdbd, mariadb-server"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge slurmdbd mariadb-server \
    >/dev/null || { apt-get update -qq && apt-get install -y -qq --no-install-recommends \
    slurmctld slurmd slurm-client munge slurmdbd mariadb-server >/dev/null; }
}

start_munge() {
  mkdir -p /run/munge && chown munge:munge /run/munge
  [ -f /etc/munge/munge.key ] || { mungekey --create 2>/dev/null || create-munge-key -f; }
  chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
  if ! pgrep -u munge munged >/dev/null; then su -s /bin/sh munge -c /usr/sbin/munged; fi
}

start_mariadb() {
  mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld
  if ! mysqladmin ping --silent 2>/dev/null; then
    [ -d /var/lib/mysql/mysql ] || mariadb-install-db --user=mysql >/dev/null
    (mariadbd --user=mysql >/var/log/mysql-schedrl.log 2>&1 &)
    for _ in $(seq 60); do mysqladmin ping --silent 2>/dev/null && break; sleep 0.5; done
  fi
  mysql -e "CREATE DATABASE IF NOT EXISTS slurm_acct_db;
            CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY 'slurmdbpass';
            GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost'; FLUSH PRIVILEGES;"
}

write_configs() {
  local host node
  host=$(hostname -s)
  mkdir -p "$ETC" "$SPOOL/slurmctld" "$SPOOL/slurmd" "$LOG"
  chown slurm:slurm "$SPOOL/slurmctld" "$LOG"
  node=$(slurmd -C | head -1)
  cat >"$ETC/slurmdbd.conf" <<EOF
AuthType=auth/munge
DbdHost=localhost
SlurmUser=slurm
LogFile=$LOG/slurmdbd.log
PidFile=/run/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=slurm
StoragePass=slurmdbpass
StorageLoc=slurm_acct_db
EOF
  chown slurm:slurm "$ETC/slurmdbd.conf" && chmod 600 "$ETC/slurmdbd.conf"
  cat >"$ETC/slurm.conf" <<EOF
ClusterName=$CLUSTER
SlurmctldHost=$host
SlurmUser=slurm
AuthType=auth/munge
StateSaveLocation=$SPOOL/slurmctld
SlurmdSpoolDir=$SPOOL/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=$LOG/slurmctld.log
SlurmdLogFile=$LOG/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=500
MailProg=/bin/true
ReturnToService=2
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=5
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
JobCompType=jobcomp/none
KillWait=30
$node State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
}

start() {
  need_root
  install
  start_munge
  start_mariadb
  write_configs
  [ -f /run/slurmdbd.pid ] && kill -0 "$(cat /run/slurmdbd.pid)" 2>/dev/null || /usr/sbin/slurmdbd
  for _ in $(seq 60); do sacctmgr -n list cluster >/dev/null 2>&1 && break; sleep 0.5; done
  sacctmgr -n list cluster format=cluster | grep -qw "$CLUSTER" || sacctmgr -i add cluster "$CLUSTER" >/dev/null
  [ -f /run/slurmctld.pid ] && kill -0 "$(cat /run/slurmctld.pid)" 2>/dev/null || /usr/sbin/slurmctld
  [ -f /run/slurmd.pid ] && kill -0 "$(cat /run/slurmd.pid)" 2>/dev/null || /usr/sbin/slurmd
  for _ in $(seq 120); do
    if sinfo -h -o %t 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then
      echo "slurm-one-node: up ($(sinfo -h -o '%P %D node(s) %c cpus %m MB %t'))"; return 0
    fi
    sleep 0.5
  done
  echo "slurm-one-node: the node did not become idle; see $LOG" >&2; sinfo >&2 || true; exit 4
}

stop() {
  need_root
  for d in slurmd slurmctld slurmdbd; do
    if [ -f "/run/$d.pid" ]; then
      kill "$(cat "/run/$d.pid")" 2>/dev/null || true
      for _ in $(seq 20); do kill -0 "$(cat "/run/$d.pid")" 2>/dev/null || break; sleep 0.25; done
      rm -f "/run/$d.pid"
    fi
  done
  mysqladmin shutdown 2>/dev/null || true
  if [ -f /run/munge/munged.pid ]; then kill "$(cat /run/munge/munged.pid)" 2>/dev/null || true; fi
  echo "slurm-one-node: stopped"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) sinfo ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
