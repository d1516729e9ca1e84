#!/usr/bin/env bash
# Issue 14's batching targets, in alternating rounds on one Redis: the limiter before issue 14 (OLD, the
# benchmarks jar built at a03f0e9 with LimiterReactiveBenchmark.java copied in) against this checkout's
# (NEW), blocking at 64 threads and reactive with 64 decisions in flight, and Bucket4j; token bucket on
# 100,000 keys. Every run is one JMH fork (6 s warmup, 5 s measured) after FLUSHALL of the given Redis,
# which must be one of the caller's own, never a shared one. BENCHMARKS.md has the steps that build OLD.
#
# Usage: batching-rounds.sh OLD_JAR NEW_JAR REDIS_PORT [ROUNDS]
set -euo pipefail
old=$1 new=$2 port=$3 rounds=${4:-5}
run() { # label jar class threads jmh-params...
    local label=$1 jar=$2 class=$3 threads=$4
    shift 4
    redis-cli -p "$port" flushall >/dev/null
    local load out
    load=$(cut -d' ' -f1 /proc/loadavg)
    out=$(java -cp "$jar" org.openjdk.jmh.Main "$class.decide" "$@" -f 1 -wi 1 -w 6s -i 1 -r 5s -t "$threads" \
        -jvmArgsAppend "-Xms1g -Xmx1g -Dbench.redis.host=127.0.0.1 -Dbench.redis.port=$port" 2>&1)
    echo "$(date +%H:%M:%S) load=$load $label $(echo "$out" | grep -E "^$class.decide " | awk '{print $(NF-1)}')" \
        "$(echo "$out" | grep -o 'calls=[0-9]* .*redisCpuMicros=[0-9]*' | head -1)"
}
keys=(-p algorithm=TOKEN_BUCKET -p workload=UNIFORM_KEYS)
for ((round = 1; round <= rounds; round++)); do
    run old-api "$old" LimiterRedisBenchmark 64 "${keys[@]}" -p path=API -p denyCache=false -p batching=false
    run new-batched "$new" LimiterRedisBenchmark 64 "${keys[@]}" -p path=API -p denyCache=false -p batching=true
    run old-reactive "$old" LimiterReactiveBenchmark 1 "${keys[@]}" -p batching=false
    run new-reactive-batched "$new" LimiterReactiveBenchmark 1 "${keys[@]}" -p batching=true
    run bucket4j "$new" Bucket4jRedisBenchmark 64 -p workload=UNIFORM_KEYS
done
