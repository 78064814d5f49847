# The enforcer's image: `docker build -t quota-enforcer .` builds the shaded jar from source and
# runs it on a JRE as a non-root user. Arguments are the CLI's: the default is `run`; `topics apply
# --bootstrap-servers kafka:9092` or `plans list` work the same. Settings come from QUOTA_ENFORCER_*
# environment variables (README, Configuration), which override a `--config` file.

FROM maven:3.9.11-eclipse-temurin-17 AS build
WORKDIR /build
COPY pom.xml ./
COPY topics ./topics
COPY core ./core
COPY client ./client
COPY server ./server
# The reactor reads every module's pom, but the image builds only the server and the modules it needs.
COPY bench/pom.xml ./bench/pom.xml
# -DskipTests still compiles the tests (with -Werror), as a developer's build does. The cache mount
# (BuildKit: docker build's default since Docker 23, and Compose v2's) keeps downloads between builds.
RUN --mount=type=cache,target=/root/.m2 mvn -B -DskipTests -pl server -am package

FROM eclipse-temurin:17.0.17_10-jre
# A fixed UID and GID, so that a volume's owner and Kubernetes' runAsUser/fsGroup can name them.
RUN groupadd --system --gid 10001 quota-enforcer \
    && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
       --shell /usr/sbin/nologin quota-enforcer \
    && mkdir -p /var/lib/quota-enforcer \
    && chown 10001:10001 /var/lib/quota-enforcer
COPY --from=build /build/server/target/quota-enforcer.jar /app/quota-enforcer.jar

# Kafka Streams' RocksDB state: a volume, so it outlives the container and a restart resumes at once.
ENV QUOTA_ENFORCER_STATE_DIR=/var/lib/quota-enforcer
VOLUME /var/lib/quota-enforcer

# Memory, sized together (README, Memory per active key): budget the container for the heap plus
# the RocksDB memory plus about 200 MiB; only -Xmx512m has been measured. The JVM reads
# JAVA_TOOL_OPTIONS itself, so a replacement (for more options) must name the heap again.
ENV JAVA_TOOL_OPTIONS="-Xmx512m"
ENV QUOTA_ENFORCER_QUOTA_ROCKSDB_MEMORY_BYTES=134217728

# The operator HTTP API, dashboard, probes and metrics (quota.http.port).
EXPOSE 8080

# The image has bash but curl and wget only "for historical reasons" (adoptium/containers#255; the
# ubi-minimal variants have neither), so the check speaks HTTP through bash's /dev/tcp: healthy when
# /health/ready answers 200, that is while Kafka Streams runs. It finds a port set by
# QUOTA_ENFORCER_QUOTA_HTTP_PORT, not one set in a --config file.
HEALTHCHECK --interval=10s --timeout=5s --start-period=120s --retries=3 \
    CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${QUOTA_ENFORCER_QUOTA_HTTP_PORT:-8080} && printf 'GET /health/ready HTTP/1.1\\r\\nHost: localhost\\r\\nConnection: close\\r\\n\\r\\n' >&3 && read -r version status rest <&3 && [ \"$status\" = 200 ]"]

USER 10001:10001
WORKDIR /app
# Exec form: java is PID 1 and receives SIGTERM, on which the enforcer commits and leaves its
# group. The flag is here, not in an overridable variable: a Kafka client thread that dies of
# OutOfMemoryError would leave a process that is up but decides nothing, so exit instead.
# Transparent huge pages for the heap: each decision looks its key up in maps of every active key and
# its request id in a table of every id of the dedup window, at random places in the heap, and 2 MiB
# pages miss the TLB less than 4 KiB ones (docs/tuning.md has the figures). The host's THP mode must
# be "madvise" or "always"; under "never" the heap keeps 4 KiB pages.
ENTRYPOINT ["java", "-XX:+ExitOnOutOfMemoryError", "-XX:+UseTransparentHugePages", "-jar", "/app/quota-enforcer.jar"]
CMD ["run"]
