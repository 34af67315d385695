// How many threads a command runs by default: one per physical core this process may
// run on, as llama.cpp does, since two hyperthreads of one core share its FMA units and a
// second thread there only adds synchronization.
#pragma once

namespace focal {

// The physical cores among the CPUs of this process's affinity mask, counted as distinct
// (package, core) pairs from /sys/devices/system/cpu/cpuN/topology. Where the topology
// cannot be read (a container without /sys), the CPUs of the mask; never less than 1.
int physical_core_count();

}  // namespace focal
