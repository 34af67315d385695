#include "cpu_cores.h"

#include <sched.h>

#include <cstdio>
#include <set>
#include <utility>

namespace focal {
namespace {

// One integer from a sysfs file; -1 when it cannot be read.
long read_topology_value(int cpu, const char* name) {
  char path[128];
  std::snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, name);
  std::FILE* f = std::fopen(path, "r");
  if (f == nullptr) return -1;
  long value = -1;
  if (std::fscanf(f, "%ld", &value) != 1) value = -1;
  std::fclose(f);
  return value;
}

}  // namespace

int physical_core_count() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return 1;
  std::set<std::pair<long, long>> cores;  // (physical_package_id, core_id)
  int cpus = 0;
  bool topology_known = true;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    ++cpus;
    const long package = read_topology_value(cpu, "physical_package_id");
    const long core = read_topology_value(cpu, "core_id");
    if (package < 0 || core < 0) topology_known = false;
    cores.insert({package, core});
  }
  const int count = topology_known ? static_cast<int>(cores.size()) : cpus;
  return count > 0 ? count : 1;
}

}  // namespace focal
