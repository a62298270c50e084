#!/usr/bin/env bash
# Builds the Java worker, workers/java/target/litebench-worker.jar, with
# Maven: its dependencies come from Maven Central into the local repository
# (~/.m2/repository, which CI caches). Nothing is installed outside this
# directory and that repository. Idempotent: Maven rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v java >/dev/null 2>&1 || ! command -v mvn >/dev/null 2>&1; then
  echo "build.sh: the Java worker needs a JDK 17+ and Maven: install them (Debian/Ubuntu: apt-get install openjdk-17-jdk-headless maven)" >&2
  exit 2
fi
v=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
if [ "${v%%.*}" -lt 17 ] 2>/dev/null; then
  echo "build.sh: java is version $v; the Java worker needs 17 or later (apt-get install openjdk-17-jdk-headless)" >&2
  exit 2
fi
mvn -q -B package -DskipTests "$@"
