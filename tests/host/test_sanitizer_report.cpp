// compute-sanitizer's reports, as it printed them on the H100 (CUDA 13.0) for buggy step files of the student
// bug suite (tests/host/sanitizer_logs/, long runs of identical reports cut), read into findings and the phrases
// the verdict uses.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "check/sanitizer_report.hpp"

using namespace workshop;

namespace {

std::string log_file(const std::string& name) {
    std::ifstream in(std::string(WORKSHOP_SANITIZER_LOGS) + "/" + name);
    EXPECT_TRUE(in.good()) << name;
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

TEST(SanitizerReport, ARaceNamesBothLines) {
    const auto findings = parse_sanitizer_output("racecheck", log_file("racecheck_missing_barrier.txt"));
    ASSERT_FALSE(findings.empty());
    const SanitizerFinding& f = findings.front();
    EXPECT_EQ(f.sentence(),
              "race: transpose.cu:28 writes and transpose.cu:30 reads the same shared memory with no "
              "barrier between");
}

TEST(SanitizerReport, EveryRaceRecordCountsWarningsToo) {
    const auto findings = parse_sanitizer_output("racecheck", log_file("racecheck_two_reads.txt"));
    ASSERT_EQ(findings.size(), 2u);
    EXPECT_EQ(findings[0].location, "matmul.cu:39");
    EXPECT_EQ(findings[0].other_location, "matmul.cu:46");
    EXPECT_EQ(findings[1].location, "matmul.cu:40");
}

TEST(SanitizerReport, AnOutOfBoundsReadNamesItsLineAndDistance) {
    const auto findings = parse_sanitizer_output("memcheck", log_file("memcheck_read_past_end.txt"));
    ASSERT_FALSE(findings.empty());
    const SanitizerFinding& f = findings.front();
    EXPECT_EQ(f.access, "read");
    EXPECT_EQ(f.size_bytes, 4);
    EXPECT_EQ(f.location, "transpose.cu:28");
    EXPECT_EQ(f.sentence(), "out of bounds: transpose.cu:28 reads 4 bytes, 1 bytes after the nearest allocation");
}

TEST(SanitizerReport, EachPlaceIsReportedOnce) {
    const auto findings = parse_sanitizer_output("memcheck", log_file("memcheck_read_past_end.txt"));
    for (size_t i = 0; i < findings.size(); ++i)
        for (size_t j = i + 1; j < findings.size(); ++j)
            EXPECT_FALSE(findings[i].headline == findings[j].headline && findings[i].location == findings[j].location);
}

TEST(SanitizerReport, ACleanRunHasNoFindings) {
    EXPECT_TRUE(parse_sanitizer_output("memcheck", log_file("memcheck_clean.txt")).empty());
    EXPECT_TRUE(parse_sanitizer_output("racecheck", log_file("racecheck_clean.txt")).empty());
}

TEST(SanitizerReport, OlderToolsPutTheKernelAfterTheLine) {
    // Written by hand in the format of earlier compute-sanitizer releases: path, line, then the kernel.
    const std::string text =
        "========= Invalid __global__ write of size 4 bytes\n"
        "=========     at 0x000002d0 in /home/s/work/step2/transpose.cu:22:transpose_element_per_thread(float const *, "
        "float *, int, int)\n"
        "=========     by thread (3,0,0) in block (1,0,0)\n"
        "=========     Address 0x7f3a is out of bounds\n"
        "=========     and is 12 bytes after the nearest allocation at 0x7f00 of size 1200 bytes\n";
    const auto findings = parse_sanitizer_output("memcheck", text);
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].location, "step2/transpose.cu:22");
    EXPECT_EQ(findings[0].access, "write");
    EXPECT_EQ(findings[0].sentence(),
              "out of bounds: step2/transpose.cu:22 writes 4 bytes, 12 bytes after the nearest allocation");
}

TEST(SanitizerReport, AMisalignedVectorAccess) {
    const auto findings = parse_sanitizer_output("memcheck", log_file("memcheck_misaligned.txt"));
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].sentence(),
              "misaligned: matmul.cu:96 reads 16 bytes at an address that is not a multiple of 16");
}

TEST(SanitizerReport, AFailedCallIsNotABadAccess) {
    // Written by hand in the tool's format: a launch the driver refused.
    const std::string text =
        "========= Program hit cudaErrorInvalidValue (error 1) due to \"invalid argument\" on CUDA API call to "
        "cudaLaunchKernel.\n";
    const auto findings = parse_sanitizer_output("memcheck", text);
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_TRUE(findings[0].is_api_error());
    EXPECT_EQ(findings[0].sentence(), "memcheck: cudaLaunchKernel failed with cudaErrorInvalidValue");
}

TEST(SanitizerReport, LeaksAreOneFindingWithTheirCountAndBytes) {
    // memcheck --leak-check full on step 1 with both cudaFree calls left out (the tool writes 12,060 with a comma).
    const auto findings = parse_sanitizer_output("memcheck", log_file("memcheck_leak.txt"));
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].leaked_allocations, 2);
    EXPECT_EQ(findings[0].leaked_bytes, 24120);
    EXPECT_EQ(findings[0].sentence(),
              "leak: 2 device allocations (24120 bytes) never freed; each cudaMalloc needs its cudaFree");
}

// The same report, with the line a checked program prints last: how much of what memcheck lists is pinned host
// memory by its own count. The leak then names each kind with its own remedy.
TEST(SanitizerReport, PinnedHostMemoryTheProgramHeldIsNamedApart) {
    const std::string log = log_file("memcheck_leak.txt");
    auto findings = parse_sanitizer_output("memcheck", log + std::string(kPinnedHostHeld) + " 1 12060\n");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].pinned_allocations, 1);
    EXPECT_EQ(findings[0].sentence(),
              "leak: 1 device allocation (12060 bytes) and 1 pinned host allocation (12060 bytes) never freed; each "
              "cudaMalloc needs its cudaFree, each cudaMallocHost or cudaHostAlloc needs its cudaFreeHost");
    findings = parse_sanitizer_output("memcheck", std::string(kPinnedHostHeld) + " 2 24120\n" + log);
    EXPECT_EQ(findings[0].sentence(),
              "leak: 2 pinned host allocations (24120 bytes) never freed; each cudaMallocHost or cudaHostAlloc "
              "needs its cudaFreeHost");
    // Pinned memory held but no leak reported (freed before the context went): no finding to make of it.
    EXPECT_TRUE(parse_sanitizer_output("memcheck", std::string(kPinnedHostHeld) + " 2 24120\n").empty());
}

// The same for host memory registered with cudaHostRegister and never unregistered (bug
// t1_output_registered_never_unregistered), alone and beside the other kinds.
TEST(SanitizerReport, HostMemoryStillRegisteredIsNamedApart) {
    const std::string log = log_file("memcheck_leak.txt");
    auto findings = parse_sanitizer_output("memcheck", log + std::string(kHostRegistrationsHeld) + " 2 24120\n");
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].registered_ranges, 2);
    EXPECT_EQ(findings[0].sentence(),
              "leak: 2 registered host ranges (24120 bytes) never unregistered; each cudaHostRegister needs its "
              "cudaHostUnregister");
    findings = parse_sanitizer_output("memcheck", log + std::string(kPinnedHostHeld) + " 1 12060\n" +
                                                      std::string(kHostRegistrationsHeld) + " 1 12060\n");
    EXPECT_EQ(findings[0].sentence(),
              "leak: 1 pinned host allocation (12060 bytes) and 1 registered host range (12060 bytes) never freed or "
              "unregistered; each cudaMallocHost or cudaHostAlloc needs its cudaFreeHost, each cudaHostRegister "
              "needs its cudaHostUnregister");
    // More held than memcheck reported (a registration it does not list): the count stops at its total.
    findings = parse_sanitizer_output("memcheck", log + std::string(kPinnedHostHeld) + " 1 12060\n" +
                                                      std::string(kHostRegistrationsHeld) + " 5 99999\n");
    EXPECT_EQ(findings[0].pinned_allocations, 1);
    EXPECT_EQ(findings[0].registered_ranges, 1);
    EXPECT_EQ(findings[0].registered_bytes, 12060);
}

TEST(SanitizerReport, ABarrierInsideAnIfNamesItsLine) {
    // One report per thread that reached it, then the tool's count of those it dropped: one finding.
    const auto findings = parse_sanitizer_output("synccheck", log_file("synccheck_divergent_barrier.txt"));
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_TRUE(findings[0].divergent_barrier);
    EXPECT_EQ(findings[0].sentence(),
              "divergent barrier: the __syncthreads() at transpose.cu:30 is reached by some "
              "threads of a warp and not by others (is it inside an if?)");
}

TEST(SanitizerReport, TheSameLinesAtTwoAddressesAreOneFinding) {
    // Written by hand in the tool's format: the race of step 5's matmul bug m5_no_barrier_after_the_first_tile,
    // reported once as an error and once as a warning, from two instructions of the same source lines.
    const std::string text =
        "========= Error: Race reported between Write access at kernel()+0x4b0 in matmul.cu:156\n"
        "=========     and Read access at kernel()+0x900 in matmul.cu:177 [512 hazards]\n"
        "========= \n"
        "========= Warning: Race reported between Write access at kernel()+0x4c0 in matmul.cu:156\n"
        "=========     and Read access at kernel()+0x910 in matmul.cu:177 [256 hazards]\n"
        "========= \n"
        "========= Warning: Race reported between Write access at kernel()+0x5c0 in matmul.cu:162\n"
        "=========     and Read access at kernel()+0x950 in matmul.cu:182 [256 hazards]\n";
    const auto findings = parse_sanitizer_output("racecheck", text);
    ASSERT_EQ(findings.size(), 2u);
    EXPECT_EQ(findings[0].sentence(),
              "race: matmul.cu:156 writes and matmul.cu:177 reads the same shared memory with no barrier between");
    EXPECT_EQ(findings[1].location, "matmul.cu:162");
}
