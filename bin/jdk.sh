# Sourced by bin/homing and .ci/run: sets HOMING_JAVA to a java binary of version 21 or newer (and HOMING_JAVA_MAJOR),
# or fails clearly.
# Order: $JAVA_HOME, then the JDKs under /usr/lib/jvm (newest first), then java on the PATH.

homing_java_major() {
  # The JDK's release file answers without starting a JVM (about 60 ms, more on a busy machine); ask java if absent.
  local real line
  real=$(readlink -f "$1")
  if [ -f "${real%/bin/java}/release" ]; then
    while IFS= read -r line; do
      case $line in
        JAVA_VERSION=*) line=${line#JAVA_VERSION=}; line=${line//\"/}; echo "${line%%[!0-9]*}"; return ;;
      esac
    done <"${real%/bin/java}/release"
  fi
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p' | head -n 1 | cut -d. -f1
}

homing_find_java() {
  local candidate major
  for candidate in ${JAVA_HOME:+"$JAVA_HOME/bin/java"} $(ls -d /usr/lib/jvm/*/bin/java 2>/dev/null | sort -rV) \
                   $(command -v java 2>/dev/null); do
    [ -x "$candidate" ] || continue
    major=$(homing_java_major "$candidate")
    if [ -n "$major" ] && [ "$major" -ge 21 ] 2>/dev/null; then
      HOMING_JAVA=$candidate
      HOMING_JAVA_MAJOR=$major
      return 0
    fi
  done
  echo "Homing needs a JDK 21 or newer, and none was found (checked \$JAVA_HOME, /usr/lib/jvm, the PATH)." >&2
  echo "Install one (for example Temurin 25) or point JAVA_HOME at it." >&2
  return 1
}
