# The bundle's environment on the GPU machine, sourced from the repository root by gpu-check.sh,
# gpu-ab.sh and gpu-jobs.sh after tools/gpu-bundle.sh packed .gpu/: its shared libraries, its
# relocated Open MPI (whose env.sh puts its own libraries first, hence .gpu/lib again after it),
# and the test data and presets the tests and the CLI look for.
export LD_LIBRARY_PATH="$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [ -f .gpu/mpi/env.sh ]; then source .gpu/mpi/env.sh; fi
export LD_LIBRARY_PATH="$PWD/.gpu/lib:$LD_LIBRARY_PATH"
export CHROMALIGN_SHARED_DATA="$PWD/.gpu/data" CHROMALIGN_CONFIG_DIR="$PWD/.gpu/configs"
export CHROMALIGN_CLI="$PWD/.gpu/chromalign"
export PATH="$PWD/.gpu:$PATH"  # minimap2, when the bundle has it
