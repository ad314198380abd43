// A child job that runs a line of sh: the stand-in for a shape's process in the host tests.
#pragma once

#include <string>

#include "base/child_processes.hpp"

inline workshop::ChildJob shell(const std::string& script, double timeout_s = 30) {
    workshop::ChildJob job;
    job.argv = {"/bin/sh", "-c", script};
    job.timeout_s = timeout_s;
    return job;
}
