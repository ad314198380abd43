// Stands in for other programs on the GPU: takes nearly all of its free memory, then runs the command given and
// exits with its exit code. A test of what make check says where there is no room left for a CUDA context.
//   hold_gpu_memory PROGRAM [ARGS...]
#include <cuda_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: hold_gpu_memory PROGRAM [ARGS...]\n");
        return 2;
    }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        std::fprintf(stderr, "no CUDA device: nothing to hold\n");
        return 3;
    }
    // Large pieces first, then smaller ones, until not even 1 MiB more fits.
    std::vector<void*> held;
    for (size_t piece = size_t{1} << 30; piece >= (size_t{1} << 20); piece /= 2) {
        void* p = nullptr;
        while (cudaMalloc(&p, piece) == cudaSuccess) held.push_back(p);
        (void)cudaGetLastError();
    }
    size_t free_bytes = 0, total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    std::fprintf(stderr, "holding all but %zu bytes of the GPU's %zu\n", free_bytes, total_bytes);
    std::fflush(stderr);
    const pid_t child = fork();
    if (child == 0) {
        execvp(argv[1], argv + 1);
        std::perror("hold_gpu_memory: exec");
        _exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
