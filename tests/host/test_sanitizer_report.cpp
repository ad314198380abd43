// compute-sanitizer's reports, as the H100 printed them for buggy step files (tests/host/sanitizer_logs/), read
// into findings and the phrases the verdict uses.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "sanitizer_report.hpp"

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
    EXPECT_EQ(f.location.rfind("t3_missing_barrier/transpose.cu:", 0), 0u) << f.location;
    EXPECT_EQ(f.other_location.rfind("t3_missing_barrier/transpose.cu:", 0), 0u) << f.other_location;
    EXPECT_NE(f.location, f.other_location);
    EXPECT_NE(f.sentence().find("with no barrier between"), std::string::npos) << f.sentence();
}

TEST(SanitizerReport, AnOutOfBoundsReadNamesItsLineAndDistance) {
    const auto findings = parse_sanitizer_output("memcheck", log_file("memcheck_read_past_end.txt"));
    ASSERT_FALSE(findings.empty());
    const SanitizerFinding& f = findings.front();
    EXPECT_EQ(f.access, "read");
    EXPECT_EQ(f.size_bytes, 4);
    EXPECT_EQ(f.location.rfind("t3_read_guard_off_by_one/transpose.cu:", 0), 0u) << f.location;
    EXPECT_NE(f.address.find("after the nearest allocation"), std::string::npos) << f.address;
    EXPECT_EQ(f.sentence().rfind("out of bounds: t3_read_guard_off_by_one/transpose.cu:", 0), 0u) << f.sentence();
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
    const std::string text =
        "========= Invalid __global__ write of size 4 bytes\n"
        "=========     at 0x000002d0 in /home/s/work/step2/transpose.cu:22:transpose_element_per_thread(float const *, float *, int, int)\n"
        "=========     by thread (3,0,0) in block (1,0,0)\n"
        "=========     Address 0x7f3a is out of bounds\n"
        "=========     and is 12 bytes after the nearest allocation at 0x7f00 of size 1200 bytes\n";
    const auto findings = parse_sanitizer_output("memcheck", text);
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].location, "step2/transpose.cu:22");
    EXPECT_EQ(findings[0].access, "write");
    EXPECT_EQ(findings[0].sentence(), "out of bounds: step2/transpose.cu:22 writes 4 bytes, 12 bytes after the nearest allocation");
}

TEST(SanitizerReport, AMisalignedVectorAccess) {
    const std::string text =
        "========= Invalid __global__ read of size 16 bytes\n"
        "=========     at void matmul_2d_tiles<Config, true>(const float *, const float *, float *, int, int, int)+0x5f0 in /x/m5_no_alignment_check/matmul.cu:88\n"
        "=========     by thread (0,0,0) in block (0,0,0)\n"
        "=========     Address 0x7f04 is misaligned\n";
    const auto findings = parse_sanitizer_output("memcheck", text);
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].sentence(),
              "misaligned: m5_no_alignment_check/matmul.cu:88 reads 16 bytes at an address that is not a multiple of 16");
}
