// libyaml, the YAML parser navhostd reads its configuration file with (Debian: libyaml-dev).
#include <yaml.h>
