#!/usr/bin/env bash
# Assembles a CUDA 12.4 toolkit in a cache folder from Debian's packages, touching nothing on the system, and
# prints the path of its nvcc. CI builds the project with it beside the installed CUDA 13, since rooms run the
# toolkit their cluster has.
#   .ci/cuda12_toolkit.sh [DIR]     (default: ${WORKSHOP_CI_CACHE:-/tmp/workshop-ci-cache}/cuda-12.4)
#
# Why Debian's packages: they are NVIDIA's own binaries, repackaged in trixie's non-free section (12.4 is the
# newest 12.x there). NVIDIA's 12.x wheels on PyPI will not do: `nvidia-cuda-nvcc-cu12` (12.4.131, 12.6.85,
# 12.8.93 and 12.9.86 alike) carries ptxas and libnvvm but not the nvcc driver, cicc or cudafe++, and only
# 12.9's runtime wheel has the static runtime that CMake's compiler check links; NVIDIA's redistributable
# archives (developer.download.nvidia.com) cannot be reached from CI. The packages are fetched with
# `apt-get download` through a private package list and unpacked with dpkg-deb (nothing is installed); about
# 1.2 GB is downloaded once, 0.7 GB kept.
set -euo pipefail

readonly release="12.4.1-2"
readonly packages=("nvidia-cuda-toolkit=12.4.131~$release" "nvidia-cuda-dev=12.4.127~$release"
                   "libcudart12=12.4.127~$release" "libcublas12=12.4.5.8~$release" "libcublaslt12=12.4.5.8~$release")
root="${1:-${WORKSHOP_CI_CACHE:-/tmp/workshop-ci-cache}/cuda-12.4}"
stamp="$root/.complete-$release"

if [ -f "$stamp" ] && [ -x "$root/bin/nvcc" ]; then
    echo "$root/bin/nvcc"
    exit 0
fi
for tool in apt-get dpkg-deb tar; do
    command -v "$tool" >/dev/null || { echo "error: $0 needs $tool (Debian or Ubuntu)" >&2; exit 1; }
done

work="$root.partial"
rm -rf "$work" "$root"
mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/debs" "$work/fs"

# A private list of trixie's non-free section: the system's sources and installed packages stay as they are.
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie non-free" \
    > "$work/apt/sources.list"
private_apt=(-o "Dir::Etc::SourceList=$work/apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
             -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache" -o Dir::State::status=/dev/null
             -o APT::Sandbox::User=root)
echo "cuda12: downloading ${packages[*]} (Debian trixie, non-free)" >&2
apt-get "${private_apt[@]}" -qq update >&2
(cd "$work/debs" && apt-get "${private_apt[@]}" -qq download "${packages[@]}" >&2)

echo "cuda12: unpacking into $root" >&2
multiarch=./usr/lib/x86_64-linux-gnu
for deb in "$work"/debs/*.deb; do
    case "$(basename "$deb")" in
        # Of the development package (static libraries of every CUDA library), only the headers and the runtime.
        nvidia-cuda-dev_*) dpkg-deb --fsys-tarfile "$deb" |
                               tar -x -C "$work/fs" ./usr/include "$multiarch/libcudart_static.a" \
                                   "$multiarch/libcudadevrt.a" ;;
        *) dpkg-deb -x "$deb" "$work/fs" ;;
    esac
done

# The layout nvcc and CMake expect of a toolkit: bin/, nvvm/, include/, lib64/.
tk="$work/tk"
mkdir -p "$tk/bin/crt" "$tk/nvvm/bin" "$tk/nvvm/libdevice" "$tk/lib64"
deb_bin="$work/fs/usr/lib/nvidia-cuda-toolkit/bin"
cp "$deb_bin/nvcc" "$tk/bin/"
cp "$deb_bin"/crt/*.stub "$tk/bin/crt/"
cp "$deb_bin/cicc" "$tk/nvvm/bin/"
for tool in cudafe++ ptxas fatbinary nvlink bin2c nvprune cuobjdump cu++filt; do
    cp "$work/fs/usr/bin/$tool" "$tk/bin/"
done
cp "$work/fs/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc" "$tk/nvvm/libdevice/"
mv "$work/fs/usr/include" "$tk/include"
cp -P "$work/fs/$multiarch"/lib{cudart,cublas,cublasLt}.so.12* "$work/fs/$multiarch"/lib{cudart_static,cudadevrt}.a \
    "$tk/lib64/"
for lib in cudart cublas cublasLt; do ln -s "lib$lib.so.12" "$tk/lib64/lib$lib.so"; done
# nvcc reads this beside itself: where its tools, headers and libraries are.
cat > "$tk/bin/nvcc.profile" <<'EOF'
TOP              = $(_HERE_)/..
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice
LD_LIBRARY_PATH += $(TOP)/lib64:
PATH            += $(TOP)/nvvm/bin:$(_HERE_):
INCLUDES        +=  "-I$(TOP)/include" $(_SPACE_)
LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/lib64"
CUDAFE_FLAGS    +=
PTXAS_FLAGS     +=
EOF
printf '%s\n' "${packages[@]}" > "$tk/packages.txt"

mv "$tk" "$root"
rm -rf "$work"
touch "$stamp"
"$root/bin/nvcc" --version | tail -2 >&2
echo "$root/bin/nvcc"
