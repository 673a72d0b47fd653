package io.roboco.sandbox.server.config;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.pool.PoolSizes;
import io.roboco.sandbox.request.Names;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.runtime.LogCap;
import io.roboco.sandbox.runtime.NetworkMode;
import io.roboco.sandbox.settings.ByteSize;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The standalone server's settings, read once from the environment and validated at start;
 * read-only afterwards. Contradictions are refused with a sentence naming the setting.
 *
 * <p>Every setting, its default and what it does: the one settings table, README.md#configuration
 * (SettingsTableTest fails when a setting read here, or by {@link McpSettings}, is missing from it or
 * its default differs).
 *
 * @param port             port on 127.0.0.1; 0 picks a free one (tests)
 * @param dbEnabledOverride the flag from the environment, or null to use the stored value
 * @param images           image per engine name (lower case), only those overridden; {@code postgres_17} keys a major
 * @param apiToken         orchestrator token, or null to use / generate the one in the state dir
 * @param adminToken       admin token, or null to use / generate the one in the state dir
 * @param poolSizes        warm-pool size per engine name (lower case); {@code postgres_17} keys a major; {@code seeded}
 *                         ({@code ROBOCO_SANDBOX_POOL_SEEDED}) is the size of each seeded project's pool
 * @param bind             {@code ROBOCO_SANDBOX_BIND}: the listen address (default 127.0.0.1; anything else is plain
 *                         HTTP on a reachable interface, and is warned about at start)
 * @param lifecycle        TTLs, quotas, capacity and audit retention
 * @param maxLimits        the most a project's {@code sandbox_limits} may set: {@code ROBOCO_SANDBOX_MAX_MEMORY},
 *                         {@code ROBOCO_SANDBOX_MAX_DATA_SIZE}, {@code ROBOCO_SANDBOX_MAX_CPUS} (default 2g, 1g, 2)
 * @param restart          re-adoption after a restart and the key file credentials are sealed under
 * @param containerLogs    the cap on every sandbox container's log on the host ({@link ContainerLogSettings})
 * @param edge             body limits, agent-token expiry and each agent token's fair share ({@link EdgeSettings})
 * @param data             what agents' data tools may keep in the state directory: templates per project (count, bytes each,
 *                         bytes in all)
 * @param runtime          which container runtime runs sandboxes, Docker or Kubernetes ({@link RuntimeSettings})
 */
public record ServerConfig(
        int port,
        Path stateDir,
        String stateUrl,
        String stateUser,
        String statePassword,
        Boolean dbEnabledOverride,
        Map<String, String> images,
        NetworkMode network,
        Duration readyTimeout,
        Duration janitorTick,
        Duration janitorGrace,
        String apiToken,
        String adminToken,
        Map<String, Integer> poolSizes,
        McpSettings mcp,
        String bind,
        LifecycleConfig lifecycle,
        Limits maxLimits,
        RestartSettings restart,
        LogCap containerLogs,
        EdgeSettings edge,
        DataSettings data,
        RuntimeSettings runtime) {
    public static final String PREFIX = "ROBOCO_SANDBOX_";
    public static final String IMAGE_PREFIX = PREFIX + "IMAGE_";
    public static final String POOL_PREFIX = PREFIX + "POOL_";
    /** Ready containers per seeded pool (one per seeded project and image); kept in {@link #poolSizes} under {@value #SEEDED_KEY}. */
    public static final String POOL_SEEDED = PREFIX + "POOL_SEEDED";

    public static final String SEEDED_KEY = "seeded";
    public static final int DEFAULT_PORT = 7070;
    public static final String DEFAULT_BIND = "127.0.0.1";
    static final int MIN_TOKEN_LENGTH = 16;

    public ServerConfig {
        if (port < 0 || port > 65535) {
            throw new ConfigException("ROBOCO_SANDBOX_PORT=" + port + " is not a TCP port; use 1-65535");
        }
        Objects.requireNonNull(stateDir, "stateDir");
        data = data == null ? DataSettings.defaults() : data;
        images = Map.copyOf(images);
        poolSizes = poolSizes == null ? Map.of() : Map.copyOf(poolSizes);
        poolSizes.forEach((engine, size) -> {
            if (size < 0 || size > PoolSizes.MAX_PER_ENGINE) {
                throw new ConfigException(
                        POOL_PREFIX + engine.toUpperCase(Locale.ROOT) + "=" + size + " is out of range; use 0-"
                                + PoolSizes.MAX_PER_ENGINE + " ready containers (default 0: no warm pool)");
            }
        });
        Objects.requireNonNull(network, "network");
        runtime = runtime == null ? RuntimeSettings.docker() : runtime;
        if (runtime.kubernetes() != network instanceof NetworkMode.Pods) {
            throw new ConfigException(
                    "the Kubernetes runtime (ROBOCO_SANDBOX_RUNTIME=kubernetes) has its pods' own network"
                            + " mode, and only it does; unset ROBOCO_SANDBOX_NETWORK");
        }
        bind = bind == null || bind.isBlank() ? DEFAULT_BIND : bind.trim();
        if (!bind.matches("[0-9A-Za-z.:%\\-\\[\\]]{1,255}")) {
            throw new ConfigException("ROBOCO_SANDBOX_BIND='" + Names.printable(bind)
                    + "' is not an address; use an IP address such as 127.0.0.1 (default) or 0.0.0.0");
        }
        lifecycle = lifecycle == null ? LifecycleConfig.defaults() : lifecycle;
        restart = restart == null ? RestartSettings.defaults() : restart;
        containerLogs = containerLogs == null ? LogCap.defaults() : containerLogs;
        edge = edge == null ? EdgeSettings.defaults() : edge;
        Objects.requireNonNull(readyTimeout, "readyTimeout");
        Objects.requireNonNull(janitorTick, "janitorTick");
        Objects.requireNonNull(janitorGrace, "janitorGrace");
        Objects.requireNonNull(mcp, "mcp");
        Objects.requireNonNull(maxLimits, "maxLimits");
        if (stateUrl == null && (stateUser != null || statePassword != null)) {
            throw new ConfigException(
                    "ROBOCO_SANDBOX_STATE_USER / ROBOCO_SANDBOX_STATE_PASSWORD are set but ROBOCO_SANDBOX_STATE_URL "
                            + "is not; set the URL to use PostgreSQL, or unset them to use the embedded database");
        }
        if (stateUrl != null && !stateUrl.startsWith("jdbc:postgresql:")) {
            throw new ConfigException("ROBOCO_SANDBOX_STATE_URL must be a jdbc:postgresql:// URL");
        }
        if (janitorGrace.compareTo(readyTimeout) <= 0) {
            throw new ConfigException(
                    "ROBOCO_SANDBOX_JANITOR_GRACE (" + Durations.format(janitorGrace) + ") must be longer than "
                            + "ROBOCO_SANDBOX_READY_TIMEOUT (" + Durations.format(readyTimeout)
                            + "), or the janitor could remove a "
                            + "container that is still becoming ready");
        }
        requireToken("ROBOCO_SANDBOX_API_TOKEN", apiToken);
        requireToken("ROBOCO_SANDBOX_ADMIN_TOKEN", adminToken);
        if (apiToken != null && apiToken.equals(adminToken)) {
            throw new ConfigException(
                    "ROBOCO_SANDBOX_API_TOKEN and ROBOCO_SANDBOX_ADMIN_TOKEN must differ: the orchestrator's "
                            + "token must not grant admin rights");
        }
    }

    /** Defaults for everything; {@code stateDir} is where tokens, instance id and the embedded database live. */
    public static ServerConfig defaults(Path stateDir) {
        return new ServerConfig(
                DEFAULT_PORT,
                stateDir,
                null,
                null,
                null,
                null,
                Map.of(),
                NetworkMode.host(),
                Duration.ofSeconds(30),
                Duration.ofMinutes(1),
                Duration.ofMinutes(2),
                null,
                null,
                Map.of(),
                McpSettings.defaults(),
                DEFAULT_BIND,
                LifecycleConfig.defaults(),
                Limits.operatorMaximums(),
                RestartSettings.defaults(),
                LogCap.defaults(),
                EdgeSettings.defaults(),
                DataSettings.defaults(),
                RuntimeSettings.docker());
    }

    /** Reads and validates every {@code ROBOCO_SANDBOX_*} setting; throws {@link ConfigException} naming the first bad one. */
    public static ServerConfig fromEnv(Map<String, String> env) {
        int port = DEFAULT_PORT;
        String rawPort = EnvValues.value(env, "ROBOCO_SANDBOX_PORT");
        if (rawPort != null) {
            try {
                port = Integer.parseInt(rawPort);
            } catch (NumberFormatException e) {
                port = -1;
            }
            if (port < 1 || port > 65535) {
                throw new ConfigException(
                        "ROBOCO_SANDBOX_PORT='" + rawPort + "' is not a TCP port; use 1-65535 (default 7070)");
            }
        }
        String home = env.getOrDefault("HOME", System.getProperty("user.home"));
        String dir = EnvValues.value(env, "ROBOCO_SANDBOX_STATE_DIR");
        Path stateDir = dir != null ? Path.of(dir) : Path.of(home, ".roboco-sandbox");

        Map<String, String> images = new TreeMap<>();
        env.forEach((key, image) -> {
            if (key.startsWith(IMAGE_PREFIX)) {
                String engine = key.substring(IMAGE_PREFIX.length()).toLowerCase(Locale.ROOT);
                if (engine.isEmpty() || image == null || image.isBlank()) {
                    throw new ConfigException(
                            key + " must name an image, e.g. " + IMAGE_PREFIX + "POSTGRES=postgres:16-alpine");
                }
                images.put(engine, image.trim());
            }
        });

        NetworkMode network;
        try {
            network = NetworkMode.parse(EnvValues.value(env, "ROBOCO_SANDBOX_NETWORK"));
        } catch (IllegalArgumentException e) {
            throw new ConfigException("ROBOCO_SANDBOX_NETWORK: " + e.getMessage());
        }
        String agentContainer = EnvValues.value(env, "ROBOCO_SANDBOX_AGENT_CONTAINER");
        if (agentContainer != null) {
            if (!(network instanceof NetworkMode.Named named)) {
                throw new ConfigException("ROBOCO_SANDBOX_AGENT_CONTAINER applies to network mode only; set"
                        + " ROBOCO_SANDBOX_NETWORK=network:<name>, or unset it");
            }
            if (!agentContainer.contains(NetworkMode.SLUG)
                    || !agentContainer.replace(NetworkMode.SLUG, "a").matches("[A-Za-z0-9][A-Za-z0-9_.-]*")) {
                throw new ConfigException(
                        "ROBOCO_SANDBOX_AGENT_CONTAINER='" + agentContainer + "' must be a container name" + " with "
                                + NetworkMode.SLUG + " where the agent's slug goes, e.g. agent-" + NetworkMode.SLUG);
            }
            network = named.withAgentContainer(agentContainer);
        }

        RuntimeSettings runtime = RuntimeSettings.fromEnv(env);
        if (runtime.kubernetes()) {
            if (!(network instanceof NetworkMode.Host) || EnvValues.value(env, "ROBOCO_SANDBOX_NETWORK") != null) {
                throw new ConfigException("ROBOCO_SANDBOX_NETWORK applies to the Docker runtime; with"
                        + " ROBOCO_SANDBOX_RUNTIME=kubernetes each sandbox is a pod reached at its address, admitted by"
                        + " its NetworkPolicy: unset ROBOCO_SANDBOX_NETWORK");
            }
            network = NetworkMode.pods();
        }

        ServerConfig d = defaults(stateDir);
        return new ServerConfig(
                port,
                stateDir,
                EnvValues.value(env, "ROBOCO_SANDBOX_STATE_URL"),
                EnvValues.value(env, "ROBOCO_SANDBOX_STATE_USER"),
                EnvValues.value(env, "ROBOCO_SANDBOX_STATE_PASSWORD"),
                EnvValues.bool(
                        env,
                        "ROBOCO_SANDBOX_DB_ENABLED",
                        null,
                        "true or false (or unset it to use the value stored from the admin page)"),
                images,
                network,
                EnvValues.duration(env, "ROBOCO_SANDBOX_READY_TIMEOUT", d.readyTimeout()),
                EnvValues.duration(env, "ROBOCO_SANDBOX_JANITOR_TICK", d.janitorTick()),
                EnvValues.duration(env, "ROBOCO_SANDBOX_JANITOR_GRACE", d.janitorGrace()),
                EnvValues.value(env, "ROBOCO_SANDBOX_API_TOKEN"),
                EnvValues.value(env, "ROBOCO_SANDBOX_ADMIN_TOKEN"),
                poolSizes(env),
                McpSettings.fromEnv(env),
                EnvValues.value(env, "ROBOCO_SANDBOX_BIND"),
                LifecycleConfig.fromEnv(env),
                maxLimits(env),
                RestartSettings.fromEnv(env),
                ContainerLogSettings.fromEnv(env),
                EdgeSettings.fromEnv(env),
                DataSettings.fromEnv(env),
                runtime);
    }

    /**
     * {@code ROBOCO_SANDBOX_MAX_MEMORY} / {@code _MAX_DATA_SIZE} (sizes such as {@code 2g}, {@code 768m}) and
     * {@code _MAX_CPUS} (a number): what a project may set per service; never below the sandbox defaults.
     */
    static Limits maxLimits(Map<String, String> env) {
        Limits d = Limits.operatorMaximums();
        Limits defaults = Limits.sandboxDefaults();
        long memory = size(env, "ROBOCO_SANDBOX_MAX_MEMORY", d.memoryBytes(), defaults.memoryBytes());
        long data = size(env, "ROBOCO_SANDBOX_MAX_DATA_SIZE", d.tmpfsBytes(), defaults.tmpfsBytes());
        long cpus = d.nanoCpus();
        String rawCpus = EnvValues.value(env, "ROBOCO_SANDBOX_MAX_CPUS");
        if (rawCpus != null) {
            try {
                cpus = Math.round(Double.parseDouble(rawCpus) * 1e9);
            } catch (NumberFormatException e) {
                cpus = -1;
            }
            if (cpus < defaults.nanoCpus()) {
                throw new ConfigException(
                        "ROBOCO_SANDBOX_MAX_CPUS='" + rawCpus + "' must be a number of CPUs of at least the default "
                                + ByteSize.formatCpus(defaults.nanoCpus()) + ", e.g. 2 (default "
                                + ByteSize.formatCpus(d.nanoCpus()) + ")");
            }
        }
        return new Limits(memory, cpus, d.pidsLimit(), data);
    }

    private static long size(Map<String, String> env, String key, long fallback, long atLeast) {
        String raw = EnvValues.value(env, key);
        if (raw == null) {
            return fallback;
        }
        long bytes;
        try {
            bytes = ByteSize.parse(raw);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(key + ": " + e.getMessage() + " (default " + ByteSize.format(fallback) + ")");
        }
        if (bytes < atLeast) {
            throw new ConfigException(key + "=" + raw + " is below the sandbox default " + ByteSize.format(atLeast)
                    + "; use at least that (default " + ByteSize.format(fallback) + ")");
        }
        return bytes;
    }

    /** Warm-pool sizes per engine, e.g. {@code ROBOCO_SANDBOX_POOL_POSTGRES=2}. */
    public ServerConfig withPoolSizes(Map<String, Integer> sizes) {
        return new ServerConfig(
                port,
                stateDir,
                stateUrl,
                stateUser,
                statePassword,
                dbEnabledOverride,
                images,
                network,
                readyTimeout,
                janitorTick,
                janitorGrace,
                apiToken,
                adminToken,
                sizes,
                mcp,
                bind,
                lifecycle,
                maxLimits,
                restart,
                containerLogs,
                edge,
                data,
                runtime);
    }

    public ServerConfig withLifecycle(LifecycleConfig next) {
        return new ServerConfig(
                port,
                stateDir,
                stateUrl,
                stateUser,
                statePassword,
                dbEnabledOverride,
                images,
                network,
                readyTimeout,
                janitorTick,
                janitorGrace,
                apiToken,
                adminToken,
                poolSizes,
                mcp,
                bind,
                next,
                maxLimits,
                restart,
                containerLogs,
                edge,
                data,
                runtime);
    }

    public ServerConfig withData(DataSettings next) {
        return new ServerConfig(
                port,
                stateDir,
                stateUrl,
                stateUser,
                statePassword,
                dbEnabledOverride,
                images,
                network,
                readyTimeout,
                janitorTick,
                janitorGrace,
                apiToken,
                adminToken,
                poolSizes,
                mcp,
                bind,
                lifecycle,
                maxLimits,
                restart,
                containerLogs,
                edge,
                next,
                runtime);
    }

    public ServerConfig withRestart(RestartSettings next) {
        return new ServerConfig(
                port,
                stateDir,
                stateUrl,
                stateUser,
                statePassword,
                dbEnabledOverride,
                images,
                network,
                readyTimeout,
                janitorTick,
                janitorGrace,
                apiToken,
                adminToken,
                poolSizes,
                mcp,
                bind,
                lifecycle,
                maxLimits,
                next,
                containerLogs,
                edge,
                data,
                runtime);
    }

    /** The key file credentials are sealed under ({@code ROBOCO_SANDBOX_SECRET_KEY_FILE}, else in the state directory). */
    public Path secretKeyFile() {
        return restart.keyFileIn(stateDir);
    }

    public ServerConfig withJanitor(Duration tick, Duration grace) {
        return new ServerConfig(
                port,
                stateDir,
                stateUrl,
                stateUser,
                statePassword,
                dbEnabledOverride,
                images,
                network,
                readyTimeout,
                tick,
                grace,
                apiToken,
                adminToken,
                poolSizes,
                mcp,
                bind,
                lifecycle,
                maxLimits,
                restart,
                containerLogs,
                edge,
                data,
                runtime);
    }

    /** True when {@link #bind} is a loopback address (the default): nothing else on the network reaches the server. */
    public boolean loopbackOnly() {
        return bind.equals("127.0.0.1") || bind.equals("::1") || bind.equals("localhost") || bind.startsWith("127.");
    }

    /** Refuses an image override or pool size for an engine the registry does not know, or a major it does not have. */
    public void validateAgainst(EngineRegistry registry) {
        for (String key : poolSizes.keySet()) {
            if (key.equals(SEEDED_KEY)) {
                continue;
            }
            requireKnown(registry, POOL_PREFIX, key);
        }
        for (String key : images.keySet()) {
            requireKnown(registry, IMAGE_PREFIX, key);
        }
    }

    /** The default image per engine ({@code ROBOCO_SANDBOX_IMAGE_<ENGINE>}). */
    public Map<String, String> defaultImages() {
        Map<String, String> out = new TreeMap<>();
        images.forEach((key, image) -> {
            if (majorOf(key) == null) {
                out.put(key, image);
            }
        });
        return out;
    }

    /** The image per engine and major ({@code ROBOCO_SANDBOX_IMAGE_<ENGINE>_<MAJOR>}). */
    public Map<String, Map<String, String>> majorImages() {
        Map<String, Map<String, String>> out = new TreeMap<>();
        images.forEach((key, image) -> {
            String major = majorOf(key);
            if (major != null) {
                out.computeIfAbsent(engineOf(key), e -> new TreeMap<>()).put(major, image);
            }
        });
        return out;
    }

    /** Pool sizes keyed as {@link PoolSizes} reads them: {@code postgres}, {@code postgres:17}. */
    public Map<String, Integer> poolKeys() {
        Map<String, Integer> out = new TreeMap<>();
        poolSizes.forEach((key, size) -> {
            if (!key.equals(SEEDED_KEY)) {
                out.put(majorOf(key) == null ? key : engineOf(key) + ":" + majorOf(key), size);
            }
        });
        return out;
    }

    /** {@code ROBOCO_SANDBOX_POOL_SEEDED}: ready containers per seeded project's pool (default 0: seeded at request time). */
    public int seededPoolSize() {
        return poolSizes.getOrDefault(SEEDED_KEY, 0);
    }

    private static final Pattern MAJOR_SUFFIX = Pattern.compile("^(.+)_(\\d+)$");

    /** The major of a key such as {@code postgres_17}; null for a plain engine name. */
    private static String majorOf(String key) {
        Matcher m = MAJOR_SUFFIX.matcher(key);
        return m.matches() ? m.group(2) : null;
    }

    private static String engineOf(String key) {
        Matcher m = MAJOR_SUFFIX.matcher(key);
        return m.matches() ? m.group(1) : key;
    }

    private static void requireKnown(EngineRegistry registry, String prefix, String key) {
        String setting = prefix + key.toUpperCase(Locale.ROOT);
        var engine = registry.find(engineOf(key));
        if (engine.isEmpty()) {
            throw new ConfigException(setting + " names no engine; known: " + String.join(", ", registry.names()));
        }
        String major = majorOf(key);
        if (major != null && !engine.get().majors().contains(major)) {
            throw new ConfigException(setting + " names no " + engine.get().name() + " major; known: "
                    + (engine.get().majors().isEmpty()
                            ? "none"
                            : String.join(", ", engine.get().majors())));
        }
    }

    public ServerConfig withPort(int newPort) {
        return new ServerConfig(
                newPort,
                stateDir,
                stateUrl,
                stateUser,
                statePassword,
                dbEnabledOverride,
                images,
                network,
                readyTimeout,
                janitorTick,
                janitorGrace,
                apiToken,
                adminToken,
                poolSizes,
                mcp,
                bind,
                lifecycle,
                maxLimits,
                restart,
                containerLogs,
                edge,
                data,
                runtime);
    }

    public ServerConfig withFlag(Boolean enabled) {
        return new ServerConfig(
                port,
                stateDir,
                stateUrl,
                stateUser,
                statePassword,
                enabled,
                images,
                network,
                readyTimeout,
                janitorTick,
                janitorGrace,
                apiToken,
                adminToken,
                poolSizes,
                mcp,
                bind,
                lifecycle,
                maxLimits,
                restart,
                containerLogs,
                edge,
                data,
                runtime);
    }

    public ServerConfig withTokens(String api, String admin) {
        return new ServerConfig(
                port,
                stateDir,
                stateUrl,
                stateUser,
                statePassword,
                dbEnabledOverride,
                images,
                network,
                readyTimeout,
                janitorTick,
                janitorGrace,
                api,
                admin,
                poolSizes,
                mcp,
                bind,
                lifecycle,
                maxLimits,
                restart,
                containerLogs,
                edge,
                data,
                runtime);
    }

    public ServerConfig withMcp(McpSettings settings) {
        return new ServerConfig(
                port,
                stateDir,
                stateUrl,
                stateUser,
                statePassword,
                dbEnabledOverride,
                images,
                network,
                readyTimeout,
                janitorTick,
                janitorGrace,
                apiToken,
                adminToken,
                poolSizes,
                settings,
                bind,
                lifecycle,
                maxLimits,
                restart,
                containerLogs,
                edge,
                data,
                runtime);
    }

    /** Never prints the state password or the tokens. */
    @Override
    public String toString() {
        return "ServerConfig[port=" + port + ", stateDir=" + stateDir + ", stateUrl="
                + (stateUrl == null ? "embedded" : stateUrl)
                + ", dbEnabledOverride=" + dbEnabledOverride + ", images=" + images + ", network=" + network
                + ", readyTimeout=" + Durations.format(readyTimeout) + ", janitorTick=" + Durations.format(janitorTick)
                + ", janitorGrace=" + Durations.format(janitorGrace) + ", apiToken="
                + (apiToken == null ? "generated" : "<set>")
                + ", adminToken=" + (adminToken == null ? "generated" : "<set>") + ", poolSizes=" + poolSizes + ", mcp="
                + mcp
                + ", bind=" + bind + ", lifecycle=" + lifecycle + ", restart=" + restart + ", containerLogs="
                + containerLogs + "]";
    }

    private static void requireToken(String setting, String token) {
        if (token != null
                && (token.length() < MIN_TOKEN_LENGTH || !token.chars().allMatch(c -> c > 0x20 && c < 0x7f))) {
            throw new ConfigException(setting + " must be at least " + MIN_TOKEN_LENGTH
                    + " printable characters without spaces; " + "unset it to have one generated");
        }
    }

    private static Map<String, Integer> poolSizes(Map<String, String> env) {
        Map<String, Integer> sizes = new TreeMap<>();
        env.forEach((key, raw) -> {
            if (key.startsWith(POOL_PREFIX)) {
                String engine = key.substring(POOL_PREFIX.length()).toLowerCase(Locale.ROOT);
                try {
                    sizes.put(engine, Integer.parseInt(raw.trim()));
                } catch (NumberFormatException | NullPointerException e) {
                    throw new ConfigException(key + "='" + raw + "' is not a number; use 0-" + PoolSizes.MAX_PER_ENGINE
                            + " ready containers (default 0: no warm pool)");
                }
            }
        });
        return sizes;
    }
}
