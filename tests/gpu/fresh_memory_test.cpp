// New memory's NaN: what every allocation call gives while a check runs, what memory kept from an earlier check
// gets again, and what the fill must never disturb (the program's own error checks, and the graphs it captures).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ledger/allocations.hpp"
#include "gpu_test_support.hpp"
#include "verify/matrix_data.hpp"

using namespace workshop;

using Harness = GpuTest;

namespace {

// True where every whole word of `bytes` at `host` is new memory's NaN and every byte after the last whole word
// is 0xFF.
bool all_fresh_on_host(const void* host, size_t bytes) {
    const auto* byte = static_cast<const unsigned char*>(host);
    const size_t words = bytes / sizeof(uint32_t);
    for (size_t w = 0; w < words; ++w) {
        uint32_t bits;
        std::memcpy(&bits, byte + w * sizeof bits, sizeof bits);
        if (bits != kFreshPoisonBits) return false;
    }
    for (size_t b = words * sizeof(uint32_t); b < bytes; ++b)
        if (byte[b] != 0xFF) return false;
    return true;
}

bool all_fresh_on_device(const void* device, size_t bytes) {
    std::vector<unsigned char> host(bytes, 0);
    EXPECT_EQ(cudaMemcpy(host.data(), device, bytes, cudaMemcpyDefault), cudaSuccess);
    return all_fresh_on_host(host.data(), bytes);
}

bool all_zero_on_device(const void* device, size_t bytes) {
    std::vector<unsigned char> host(bytes, 0xFF);
    EXPECT_EQ(cudaMemcpy(host.data(), device, bytes, cudaMemcpyDefault), cudaSuccess);
    return std::all_of(host.begin(), host.end(), [](unsigned char b) { return b == 0; });
}

// The types of the nodes of a captured graph, sorted: CUDA promises no order.
std::vector<cudaGraphNodeType> node_types(cudaGraph_t graph) {
    size_t count = 0;
    EXPECT_EQ(cudaGraphGetNodes(graph, nullptr, &count), cudaSuccess);
    std::vector<cudaGraphNode_t> nodes(count);
    if (count > 0) { EXPECT_EQ(cudaGraphGetNodes(graph, nodes.data(), &count), cudaSuccess); }
    std::vector<cudaGraphNodeType> types;
    for (cudaGraphNode_t node : nodes) {
        cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
        EXPECT_EQ(cudaGraphNodeGetType(node, &type), cudaSuccess);
        types.push_back(type);
    }
    std::sort(types.begin(), types.end());
    return types;
}

}  // namespace

// What a kernel reads from memory nothing wrote must not be zeros by luck while a check runs: every way to allocate
// device memory gives new memory's NaN in every word then (the few bytes after the last whole word 0xFF), the
// stream-ordered ones in their stream's order, with no error left for the program's own checks to find.
TEST_F(Harness, DeviceMemoryAllocatedDuringACheckStartsAsNaN) {
    cudaStream_t own = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&own, cudaStreamNonBlocking), cudaSuccess);
    void *plain = nullptr, *odd = nullptr, *managed = nullptr, *pitched = nullptr, *async = nullptr;
    size_t pitch = 0;
    cudaPitchedPtr cube{};
    {
        const FreshMemoryPoisoned poisoned;
        ASSERT_EQ(cudaMalloc(&plain, 1000), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&odd, 1003), cudaSuccess);
        ASSERT_EQ(cudaMallocManaged(&managed, 3000), cudaSuccess);
        ASSERT_EQ(cudaMallocPitch(&pitched, &pitch, 100, 7), cudaSuccess);
        ASSERT_EQ(cudaMalloc3D(&cube, make_cudaExtent(100, 3, 2)), cudaSuccess);
        ASSERT_EQ(cudaMallocAsync(&async, 5000, own), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(own), cudaSuccess);
        EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    }
    EXPECT_TRUE(all_fresh_on_device(plain, 1000));
    EXPECT_TRUE(all_fresh_on_device(odd, 1003));
    EXPECT_TRUE(all_fresh_on_device(managed, 3000));
    EXPECT_TRUE(all_fresh_on_device(pitched, pitch * 7));
    EXPECT_TRUE(all_fresh_on_device(cube.ptr, cube.pitch * 3 * 2));
    EXPECT_TRUE(all_fresh_on_device(async, 5000));
    float first = 0;
    ASSERT_EQ(cudaMemcpy(&first, plain, sizeof first, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_TRUE(std::isnan(first) && is_fresh_poison(first) && !is_poison(first));
    for (void* p : {plain, odd, managed, pitched, cube.ptr}) ASSERT_EQ(cudaFree(p), cudaSuccess);
    ASSERT_EQ(cudaFreeAsync(async, own), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(own), cudaSuccess);
    ASSERT_EQ(cudaStreamDestroy(own), cudaSuccess);
}

// A pinned buffer that stages the input on its way to the device is new memory too: while a check runs it starts as
// the same NaN (the last part word as 0xFF bytes).
TEST_F(Harness, PinnedHostMemoryAllocatedDuringACheckStartsAsNaN) {
    void *pinned = nullptr, *mapped = nullptr;
    {
        const FreshMemoryPoisoned poisoned;
        ASSERT_EQ(cudaMallocHost(&pinned, 4003), cudaSuccess);
        ASSERT_EQ(cudaHostAlloc(&mapped, 6000, cudaHostAllocMapped | cudaHostAllocWriteCombined), cudaSuccess);
    }
    EXPECT_TRUE(all_fresh_on_host(pinned, 4003));
    EXPECT_TRUE(all_fresh_on_host(mapped, 6000));
    for (void* p : {pinned, mapped}) ASSERT_EQ(cudaFreeHost(p), cudaSuccess);
}

// make check runs its shapes one after another in one process. A buffer that a step's function allocated during
// one shape's check and keeps holds that shape's values by the next; it starts each later check as new memory's
// NaN again, as it would in a process of its own. Memory allocated outside a check is the program's and is left as
// it is, and a check inside a check refills nothing.
TEST_F(Harness, MemoryKeptFromAnEarlierCheckStartsTheNextAsNaNAgain) {
    void *kept = nullptr, *outside = nullptr;
    ASSERT_EQ(cudaMalloc(&outside, 4096), cudaSuccess);
    ASSERT_EQ(cudaMemset(outside, 0, 4096), cudaSuccess);
    {
        const FreshMemoryPoisoned first_check;
        ASSERT_EQ(cudaMalloc(&kept, 1003), cudaSuccess);
    }
    ASSERT_EQ(cudaMemset(kept, 0, 1003), cudaSuccess);
    {
        const FreshMemoryPoisoned next_check;
        EXPECT_TRUE(all_fresh_on_device(kept, 1003));
        ASSERT_EQ(cudaMemset(kept, 0, 1003), cudaSuccess);
        { const FreshMemoryPoisoned inner; }
        EXPECT_TRUE(all_zero_on_device(kept, 1003));
    }
    EXPECT_TRUE(all_zero_on_device(outside, 4096));
    ASSERT_EQ(cudaFree(kept), cudaSuccess);
    { const FreshMemoryPoisoned after_the_free; }
    EXPECT_TRUE(all_zero_on_device(outside, 4096));
    ASSERT_EQ(cudaFree(outside), cudaSuccess);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

// A stream-ordered allocation queued while its stream is being captured is a node of the graph, not memory yet:
// there is nothing to fill, and a fill queued on that stream would become a node the program never asked for.
// The graph holds the program's nodes and nothing else, and the capture ends cleanly (in the global mode, where
// CUDA refuses most calls that are not queued on a stream).
TEST_F(Harness, AStreamOrderedAllocationBeingCapturedGetsNoFillNode) {
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    cudaGraph_t graph = nullptr;
    {
        const FreshMemoryPoisoned poisoned;
        void* buffer = nullptr;
        ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
        EXPECT_EQ(cudaMallocAsync(&buffer, 4096, stream), cudaSuccess);
        EXPECT_EQ(cudaMemsetAsync(buffer, 0, 4096, stream), cudaSuccess);
        EXPECT_EQ(cudaFreeAsync(buffer, stream), cudaSuccess);
        ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
    }
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    std::vector<cudaGraphNodeType> expected{cudaGraphNodeTypeMemAlloc, cudaGraphNodeTypeMemset,
                                            cudaGraphNodeTypeMemFree};
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(node_types(graph), expected);
    ASSERT_EQ(cudaGraphDestroy(graph), cudaSuccess);
    ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

// Allocations while another stream is being captured, as CUDA's documentation shows them done then: with the
// thread's capture mode relaxed around the calls (in the global mode CUDA refuses both). Both are filled, outside
// the graph, and the capture goes on as if nothing had happened: it ends cleanly with the program's one node.
// The calls inside the capture are EXPECTs, so that a failure still ends it and leaves the next test a clean slate.
TEST_F(Harness, AllocationsDuringAnotherStreamsCaptureAreFilledOutsideTheGraph) {
    cudaStream_t captured = nullptr, other = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&captured, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), cudaSuccess);
    void* scratch = nullptr;
    ASSERT_EQ(cudaMalloc(&scratch, 4096), cudaSuccess);
    void *plain = nullptr, *async = nullptr;
    cudaGraph_t graph = nullptr;
    {
        const FreshMemoryPoisoned poisoned;
        ASSERT_EQ(cudaStreamBeginCapture(captured, cudaStreamCaptureModeGlobal), cudaSuccess);
        EXPECT_EQ(cudaMemsetAsync(scratch, 0, 4096, captured), cudaSuccess);
        cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
        EXPECT_EQ(cudaThreadExchangeStreamCaptureMode(&mode), cudaSuccess);
        EXPECT_EQ(cudaMalloc(&plain, 1000), cudaSuccess);
        EXPECT_EQ(cudaMallocAsync(&async, 3000, other), cudaSuccess);
        EXPECT_EQ(cudaThreadExchangeStreamCaptureMode(&mode), cudaSuccess);
        ASSERT_EQ(cudaStreamEndCapture(captured, &graph), cudaSuccess);
    }
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    EXPECT_EQ(node_types(graph), std::vector<cudaGraphNodeType>{cudaGraphNodeTypeMemset});
    ASSERT_EQ(cudaStreamSynchronize(other), cudaSuccess);
    ASSERT_TRUE(plain && async);
    EXPECT_TRUE(all_fresh_on_device(plain, 1000));
    EXPECT_TRUE(all_fresh_on_device(async, 3000));
    ASSERT_EQ(cudaGraphDestroy(graph), cudaSuccess);
    ASSERT_EQ(cudaFreeAsync(async, other), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(other), cudaSuccess);
    for (void* p : {plain, scratch}) ASSERT_EQ(cudaFree(p), cudaSuccess);
    for (cudaStream_t s : {captured, other}) ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

// The program's own error checks see what they would see without the fill: an error the program left pending
// before an allocation is still there after it, for cudaGetLastError to report, and nothing else is.
TEST_F(Harness, TheFillKeepsAnErrorThatWasPending) {
    void* buffer = nullptr;
    {
        const FreshMemoryPoisoned poisoned;
        ASSERT_EQ(cudaSetDevice(-1), cudaErrorInvalidDevice);
        ASSERT_EQ(cudaMalloc(&buffer, 1000), cudaSuccess);
    }
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    EXPECT_TRUE(all_fresh_on_device(buffer, 1000));
    ASSERT_EQ(cudaFree(buffer), cudaSuccess);
}
