#!/usr/bin/env bash
# Packs a relocatable copy of this machine's Open MPI (Debian 12: Open MPI 4.1.4 + external
# PMIx 4.2, hwloc 2.9, libevent 2.1) into .gpu/mpi/, so that the GPU machine, which has no MPI,
# can run `mpirun -np N ...` on one node over shared memory. Run from the repository root,
# after tools/gpu-bundle.sh filled .gpu/ (it creates .gpu/mpi/ if .gpu/ does not exist).
#
# On the GPU machine (bash):
#   source .gpu/mpi/env.sh
#   mpirun -np 2 --bind-to none .gpu/chromalign ...
#
# Layout of .gpu/mpi/:
#   bin/                mpirun, mpiexec, orterun (copies of the same launcher), orted, ompi_info
#   lib/                libmpi, libmpi_cxx, libopen-rte, libopen-pal, libpmix and the libraries
#                       they and the plugins need (hwloc, libevent, munge, udev, zlib)
#   lib/openmpi3/       Open MPI MCA plugins (no InfiniBand/OFI/UCX/PSM, OpenSHMEM, Slurm, ...)
#   lib/pmix/           PMIx plugins
#   share/openmpi/      Open MPI help texts and data files
#   share/pmix/         PMIx help texts
#   etc/                openmpi-mca-params.conf (our single-node defaults), default hostfile
#   env.sh              to be sourced: relocation variables, PATH, LD_LIBRARY_PATH, MCA settings
set -euo pipefail
cd "$(dirname "$0")/.."

dest=.gpu/mpi
ompi_lib=/usr/lib/x86_64-linux-gnu                   # libmpi.so.40 & co. (real files)
ompi_plugins=$ompi_lib/openmpi/lib/openmpi3          # Open MPI's pkglibdir
ompi_share=/usr/share/openmpi                        # Open MPI's pkgdatadir
pmix_root=$ompi_lib/pmix2                            # external PMIx used by mca_pmix_ext3x

for f in /usr/bin/orterun /usr/bin/orted "$ompi_lib/libmpi.so.40" "$ompi_plugins/mca_pml_ob1.so" \
         "$pmix_root/lib/libpmix.so.2" "$ompi_share/help-orterun.txt"; do
  [ -e "$f" ] || { echo "gpu-bundle-mpi: $f missing (apt-get install openmpi-bin libopenmpi-dev)" >&2; exit 1; }
done

rm -rf "$dest"
mkdir -p "$dest"/bin "$dest"/lib/openmpi3 "$dest"/lib/pmix "$dest"/share/openmpi "$dest"/share/pmix "$dest"/etc

# Launcher. mpirun/mpiexec are alternatives symlinks to orterun; plain copies avoid links.
for b in mpirun mpiexec orterun; do cp /usr/bin/orterun "$dest/bin/$b"; done
cp /usr/bin/orted /usr/bin/ompi_info "$dest/bin/"   # ompi_info: to check the setup there

# Open MPI MCA plugins. Left out: fabrics the GPU machine lacks (openib/verbs, OFI, UCX, PSM,
# PSM2 pull in libibverbs, libfabric, libucp ...), OpenSHMEM, Slurm/Grid Engine/Flux/JSM
# integration (so that stray SLURM_* variables cannot redirect the launch to srun), the
# monitoring and netlink plugins, the obsolete btl sm stub and the debugger message queue lib.
for f in "$ompi_plugins"/mca_*.so; do
  n=$(basename "$f" .so); n=${n#mca_}
  case "$n" in
    *ofi*|*openib*|*psm*|*ucx*|*verbs*) continue ;;
    atomic_*|memheap_*|scoll_*|spml_*|sshmem_*) continue ;;     # OpenSHMEM
    *slurm*|*gridengine*|*flux*|*jsm*) continue ;;              # resource managers
    *monitoring*|reachable_netlink|btl_sm) continue ;;
  esac
  cp "$f" "$dest/lib/openmpi3/"
done
cp "$pmix_root"/lib/pmix/pmix_mca_*.so "$dest/lib/pmix/"
rm -f "$dest"/lib/pmix/*slurm*

# Shared libraries: the closure of what the launcher, the core libraries and the kept plugins
# need, minus the C/C++ runtime that every image has (and whose newer versions we must use).
skip_lib() {
  case "$1" in
    libc.so*|libm.so*|libstdc++*|libgcc_s*|libpthread*|libdl.so*|librt.so*|ld-linux*|linux-vdso*) return 0 ;;
  esac
  return 1
}
declare -A have=([libmpi.so.40]=1 [libmpi_cxx.so.40]=1)
cp -L "$ompi_lib/libmpi.so.40" "$ompi_lib/libmpi_cxx.so.40" "$dest/lib/"   # what mpicxx links to
queue=("$dest"/bin/orterun "$dest"/bin/orted "$dest"/lib/*.so.40 "$dest"/lib/openmpi3/*.so "$dest"/lib/pmix/*.so)
while [ ${#queue[@]} -gt 0 ]; do
  obj=${queue[0]}; queue=("${queue[@]:1}")
  while read -r soname path; do
    skip_lib "$soname" && continue
    [ -n "${have[$soname]:-}" ] && continue
    if [ -z "$path" ] || [ "$path" = "not" ]; then
      echo "gpu-bundle-mpi: $obj needs $soname, not found here" >&2; exit 1
    fi
    have[$soname]=1
    cp -L "$path" "$dest/lib/$soname"
    queue+=("$path")
  done < <(ldd "$obj" | awk '$2 == "=>" {print $1, $3}')
done
# Help texts and data (errors print "Sorry! You were supposed to get help about..." without them).
cp "$ompi_share"/help-*.txt "$ompi_share"/*.ini "$dest/share/openmpi/"
cp -r "$ompi_share"/amca-param-sets "$dest/share/openmpi/" 2>/dev/null || true
cp "$pmix_root"/share/pmix/help-*.txt "$dest/share/pmix/"
cp /etc/openmpi/openmpi-default-hostfile "$dest/etc/"
cat > "$dest/etc/openmpi-mca-params.conf" <<'EOF'
# Single node, shared memory only, no network fabrics (gpu-bundle-mpi.sh). env.sh sets the same.
btl = self,vader
pml = ob1
mtl = ^ofi,psm,psm2
osc = ^ucx,pt2pt
btl_base_warn_component_unused = 0
btl_vader_single_copy_mechanism = none
mca_base_component_show_load_errors = 0
EOF
: > "$dest/etc/pmix-mca-params.conf"

cat > "$dest/env.sh" <<'EOF'
# Source from bash (or set GPU_MPI to this folder first, for other shells):
#   source .gpu/mpi/env.sh && mpirun -np 2 --bind-to none ./prog
# Makes the relocated Open MPI 4.1.4 in this folder usable where no MPI is installed.
if [ -n "${BASH_SOURCE:-}" ]; then
  GPU_MPI=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
else
  GPU_MPI=$(cd "${GPU_MPI:-.gpu/mpi}" && pwd)
fi
export GPU_MPI
# Relocation: Open MPI 4 takes its install directories from OPAL_* (its Debian layout differs
# from ours, so the derived ones are set explicitly). The sysconfdir is /etc/openmpi otherwise.
export OPAL_PREFIX="$GPU_MPI" OPAL_EXEC_PREFIX="$GPU_MPI" OPAL_BINDIR="$GPU_MPI/bin"
export OPAL_LIBDIR="$GPU_MPI/lib" OPAL_PKGLIBDIR="$GPU_MPI/lib/openmpi3"
export OPAL_DATAROOTDIR="$GPU_MPI/share" OPAL_DATADIR="$GPU_MPI/share" OPAL_PKGDATADIR="$GPU_MPI/share/openmpi"
export OPAL_SYSCONFDIR="$GPU_MPI/etc"
export OMPI_MCA_mca_base_component_path="$GPU_MPI/lib/openmpi3"
# PMIx is a separate library (Debian's libpmix2) with its own install directories, all of them
# absolute (/usr/lib/x86_64-linux-gnu/pmix2/...); it takes them from PMIX_* in the same way.
export PMIX_PREFIX="$GPU_MPI" PMIX_EXEC_PREFIX="$GPU_MPI" PMIX_BINDIR="$GPU_MPI/bin"
export PMIX_LIBDIR="$GPU_MPI/lib" PMIX_PKGLIBDIR="$GPU_MPI/lib/pmix"
export PMIX_DATAROOTDIR="$GPU_MPI/share" PMIX_DATADIR="$GPU_MPI/share" PMIX_PKGDATADIR="$GPU_MPI/share/pmix"
export PMIX_SYSCONFDIR="$GPU_MPI/etc"
export PMIX_MCA_mca_base_component_path="$GPU_MPI/lib/pmix"
# PMIx's plain hash store instead of its shared-memory dstore (the GPU machine's image sets the same)
export PMIX_MCA_gds="${PMIX_MCA_gds:-hash}"
# hwloc: use none of the machine's hwloc plugins (another hwloc version may be installed there)
export HWLOC_PLUGINS_PATH="$GPU_MPI/lib/hwloc"
export PATH="$GPU_MPI/bin:$PATH"
export LD_LIBRARY_PATH="$GPU_MPI/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# One node, root, shared memory only; no InfiniBand/UCX/OFI; no warnings about unused fabrics.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_MCA_mtl='^ofi,psm,psm2' OMPI_MCA_osc='^ucx,pt2pt'
export OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_mca_base_component_show_load_errors=0
# CMA (process_vm_readv) is often forbidden in containers (ptrace); copy through the shared segment.
export OMPI_MCA_btl_vader_single_copy_mechanism=none
# vader's shared segments go to /dev/shm (a few MiB per rank); Docker's default /dev/shm is 64 MiB.
# Where it is missing, read-only or nearly full, use the temporary directory instead.
if [ -z "${OMPI_MCA_btl_vader_backing_directory:-}" ] && { [ ! -w /dev/shm ] ||
   [ "$(df -Pk /dev/shm 2>/dev/null | awk 'NR==2 {print $4}')" -lt 65536 ] 2>/dev/null; }; then
  export OMPI_MCA_btl_vader_backing_directory="${TMPDIR:-/tmp}"
fi
# Runtime wire-up: TCP over loopback only, never the outside interfaces.
export OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo
# No ssh/rsh: everything runs on this node.
export OMPI_MCA_plm=isolated
EOF

du -sh "$dest"
