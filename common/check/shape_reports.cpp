// The reports a child of the battery sends and the battery reads back (battery.hpp's ShapeReport): their JSON, the
// child's report channel, and the failure line of make check's timed run. battery.cpp runs the children and judges
// what they report; this file is only the wire between them.
#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "base/exit_codes.hpp"
#include "check/battery.hpp"

namespace workshop {

namespace {

const char* outcome_name(ShapeReport::Outcome o) {
    switch (o) {
        case ShapeReport::Outcome::Pass: return "pass";
        case ShapeReport::Outcome::Skip: return "skip";
        case ShapeReport::Outcome::Fail: break;
    }
    return "fail";
}

nlohmann::json report_json(const ShapeReport& r) {
    nlohmann::json j = {{"outcome", outcome_name(r.outcome)},
                        {"headline", r.headline},
                        {"reason", r.reason},
                        {"hint", r.hint},
                        {"details", r.details},
                        {"exit_code", r.exit_code},
                        {"unsteady", r.unsteady},
                        {"non_blocking_stream", r.non_blocking_stream}};
    if (r.shape >= 0) j["shape"] = r.shape;
    if (!r.map.empty())
        j["map"] = {{"text", r.map},
                    {"in_colour", r.map_in_colour},
                    {"headline", r.map_headline},
                    {"svg", r.map_svg},
                    {"elements", r.map_elements},
                    {"blocks_down", r.map_blocks_down},
                    {"blocks_across", r.map_blocks_across}};
    return j;
}

// A report from its JSON; nothing where a field the battery needs is missing or of another type.
std::optional<ShapeReport> report_of(const nlohmann::json& j) {
    if (!j.is_object() || !j.contains("outcome") || !j.contains("headline") || !j.contains("exit_code"))
        return std::nullopt;
    try {
        ShapeReport r;
        const std::string outcome = j.at("outcome").get<std::string>();
        if (outcome != "pass" && outcome != "skip" && outcome != "fail") return std::nullopt;
        r.outcome = outcome == "pass"   ? ShapeReport::Outcome::Pass
                    : outcome == "skip" ? ShapeReport::Outcome::Skip
                                        : ShapeReport::Outcome::Fail;
        r.headline = j.at("headline").get<std::string>();
        r.exit_code = j.at("exit_code").get<int>();
        r.shape = j.value("shape", -1);
        r.reason = j.value("reason", "");
        r.hint = j.value("hint", "");
        r.details = j.value("details", std::vector<std::string>{});
        r.unsteady = j.value("unsteady", false);
        r.non_blocking_stream = j.value("non_blocking_stream", false);
        if (const auto map = j.find("map"); map != j.end() && map->is_object()) {
            r.map = map->value("text", "");
            r.map_in_colour = map->value("in_colour", "");
            r.map_headline = map->value("headline", "");
            r.map_svg = map->value("svg", "");
            r.map_elements = map->value("elements", int64_t{0});
            r.map_blocks_down = map->value("blocks_down", int64_t{0});
            r.map_blocks_across = map->value("blocks_across", int64_t{0});
        }
        return r;
    } catch (const nlohmann::json::exception&) { return std::nullopt; }
}

nlohmann::json parsed_or_null(const std::string& line) {
    return nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
}

int shape_now = -1;  // set_shape_in_turn
FailureRoute route_now = FailureRoute::ReportChannelOnly;

}  // namespace

ShapeReport report_of_a_line(ShapeReport::Outcome outcome, const std::string& headline, int exit_code) {
    ShapeReport r;
    r.outcome = outcome;
    r.headline = headline;
    if (outcome == ShapeReport::Outcome::Fail) r.reason = headline.substr(std::string("FAIL: ").size());
    r.exit_code = exit_code;
    return r;
}

std::string report_line(const ShapeReport& report) { return report_json(report).dump(); }

std::optional<ShapeReport> report_from_line(const std::string& line) { return report_of(parsed_or_null(line)); }

std::vector<ShapeReport> reports_in(const std::string& channel) {
    std::vector<ShapeReport> reports;
    std::istringstream lines(channel);
    for (std::string line; std::getline(lines, line);)
        if (auto r = report_from_line(line)) reports.push_back(std::move(*r));
    return reports;
}

int report_channel() {
    static const int fd = [] {
        const char* path = std::getenv(kReportChannel);
        return path && *path ? ::open(path, O_WRONLY | O_APPEND | O_CLOEXEC) : -1;
    }();
    return fd;
}

bool send_report(const ShapeReport& report) {
    const int fd = report_channel();
    if (fd < 0) return false;
    const std::string line = report_line(report) + "\n";
    for (size_t done = 0; done < line.size();) {
        const ssize_t n = ::write(fd, line.data() + done, line.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            fmt::print(stderr, "error: cannot write the shape's report to {}\n", std::getenv(kReportChannel));
            std::exit(kExitCannotWrite);
        }
        done += static_cast<size_t>(n);
    }
    return true;
}

void set_shape_in_turn(int index) { shape_now = index; }
int shape_in_turn() { return shape_now; }

void set_failure_route(FailureRoute route) { route_now = route; }
FailureRoute failure_route() { return route_now; }

std::string failure_line(const ShapeReport& report) { return nlohmann::json{{"failure", report_json(report)}}.dump(); }

TimingRunSaid timing_run_said(const std::string& out) {
    TimingRunSaid said;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
        const nlohmann::json j = line.rfind("{\"failure\"", 0) == 0 ? parsed_or_null(line) : nlohmann::json();
        if (j.is_object() && j.contains("failure")) {
            if (auto report = report_of(j["failure"])) said.failure = std::move(report);
            continue;
        }
        said.shown += line + "\n";
    }
    return said;
}

}  // namespace workshop
