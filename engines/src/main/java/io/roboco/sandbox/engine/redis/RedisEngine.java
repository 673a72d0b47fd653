package io.roboco.sandbox.engine.redis;

import io.roboco.sandbox.engine.AllowedFeature;
import io.roboco.sandbox.engine.Checkpoints;
import io.roboco.sandbox.engine.ContainerExec;
import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.DataDiffs;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.engine.FeatureUnavailableException;
import io.roboco.sandbox.engine.LiveSession;
import io.roboco.sandbox.engine.Login;
import io.roboco.sandbox.engine.Printable;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.Probes;
import io.roboco.sandbox.engine.ReadinessProbe;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.engine.SpecRequest;
import io.roboco.sandbox.engine.Urls;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Redis sandboxes (Redis 7+). The admin is the {@code default} user (its password a {@code requirepass} line the
 * server reads from its stdin, expanded from the container env by the shell, so it is in no process's arguments);
 * the agent is an ACL user with every data command and the modules' commands, but no administration:
 * {@code MODULE}, {@code CONFIG}, {@code DEBUG}, {@code SHUTDOWN}, {@code ACL}, {@code MONITOR},
 * replication, persistence and cluster commands are denied.
 *
 * <p>Modules are loaded on demand through {@code redis-cli MODULE LOAD} in an exec (the server allows
 * {@code MODULE} from local connections only); images that already load them (Redis 8) need nothing.
 *
 * <p>The admin password never goes to a listener not proven to be the container's server: readiness is a
 * {@code PING} through an exec over the server's own unix socket ({@value #SOCKET}, inside the container), which
 * only the container's server can answer; that server binds its TCP port before it serves and exits when it
 * cannot, so once it answers, the TCP port is its own. Only then does the admin log in over TCP, and only on a
 * loopback endpoint (host mode): on a network endpoint the admin's {@code AUTH}, which Redis sends in clear, would
 * cross a shared network, so admin work stays in the exec there.
 */
public final class RedisEngine implements Engine {
    static final String ADMIN_USER = "default";
    private static final Checkpoints CHECKPOINTS = new RedisCheckpoints();
    private static final DataDiffs DATA_DIFFS = new RedisDataDiffs();
    static final String DATA_DIR = "/data";
    /** The server's unix socket, inside the container's tmpfs: the channel that reaches only the container's server. */
    static final String SOCKET = DATA_DIR + "/redis.sock";

    /** Allowlisted feature → names it has in {@code MODULE LIST} and module files to look for. */
    private record Module(Set<String> names, List<String> files) {}

    private static final Map<String, Module> MODULES = Map.of(
            "search",
                    new Module(
                            Set.of("search", "ft"),
                            List.of(
                                    "/usr/local/lib/redis/modules/redisearch.so",
                                    "/usr/lib/redis/modules/redisearch.so")),
            "json",
                    new Module(
                            Set.of("ReJSON"),
                            List.of(
                                    "/usr/local/lib/redis/modules/rejson.so",
                                    "/usr/lib/redis/modules/rejson.so",
                                    "/usr/lib/redis/modules/librejson.so")),
            "bloom",
                    new Module(
                            Set.of("bf"),
                            List.of(
                                    "/usr/local/lib/redis/modules/redisbloom.so",
                                    "/usr/lib/redis/modules/redisbloom.so")));

    /** Everything, minus administration; explicit denials after the categories so no category quirk re-allows them. */
    static final List<String> AGENT_RULES = List.of(
            "~*",
            "&*",
            "+@all",
            "-@admin",
            "-@dangerous",
            "+flushdb",
            "+flushall",
            "+keys",
            "+info",
            "+sort",
            "-module",
            "-config",
            "-debug",
            "-shutdown",
            "-acl",
            "-monitor",
            "-replicaof",
            "-slaveof",
            "-save",
            "-bgsave",
            "-bgrewriteaof",
            "-failover",
            "-cluster");

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public String displayName() {
        return "Redis";
    }

    @Override
    public String defaultImage() {
        return "redis:8-alpine";
    }

    @Override
    public int defaultPort() {
        return 6379;
    }

    @Override
    public Set<String> features() {
        return MODULES.keySet();
    }

    @Override
    public String featuresKey() {
        return "available_modules";
    }

    @Override
    public Credentials newCredentials(SecretSource secrets) {
        return new Credentials(
                ADMIN_USER, secrets.password(), "agent_" + secrets.identifier(), secrets.password(), "0");
    }

    /**
     * The command is {@code sh -c 'exec docker-entrypoint.sh redis-server - --bind ... <<EOF requirepass
     * $REDIS_ADMIN_PASSWORD EOF'}: {@code redis-server -} reads configuration from its stdin, a here-document the
     * shell expands inside the container, so the password is in no process's arguments ({@code ps} shows
     * {@code $REDIS_ADMIN_PASSWORD} unexpanded in the shell's, nothing in the server's). The image's entrypoint
     * still sees {@code redis-server} first, so it drops root for the {@code redis} user as usual and passes stdin
     * on. The server also listens on {@value #SOCKET} (mode 700), which the admin reaches through an exec.
     * {@code --enable-debug-command local} lets the admin's {@code DEBUG RELOAD} load a checkpoint
     * ({@link RedisCheckpoints}); the agent's ACL user is denied {@code DEBUG} whatever the connection.
     * {@code REDIS_PORT} tells {@code redis-cli} in an exec where the server listens.
     *
     * <p>With a container memory limit, {@code --maxmemory} is {@linkplain #maxmemory three quarters of it} and
     * the policy {@code noeviction}: a full sandbox answers writes with {@code OOM command not allowed when
     * used memory > 'maxmemory'} (reads and deletes still work) instead of being OOM-killed by the kernel.
     */
    @Override
    public ContainerSpec containerSpec(SpecRequest request) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("REDIS_ADMIN_PASSWORD", request.credentials().adminPassword());
        env.put("REDIS_PORT", Integer.toString(request.port()));
        String script = "exec docker-entrypoint.sh redis-server -"
                + " --bind " + shellWord(request.bindHost()) + " --port " + request.port()
                + " --unixsocket " + SOCKET + " --unixsocketperm 700"
                + " --enable-module-command local --enable-debug-command local"
                + " --save '' --appendonly no --protected-mode no";
        if (request.memoryBytes() > 0) {
            script += " --maxmemory " + maxmemory(request.memoryBytes()) + " --maxmemory-policy noeviction";
        }
        script += " <<EOF\nrequirepass $REDIS_ADMIN_PASSWORD\nEOF\n";
        return new ContainerSpec(request.image(), env, List.of("sh", "-c", script), DATA_DIR, request.port());
    }

    /**
     * Redis's own ceiling for a container limited to {@code containerBytes}: 75 %. {@code maxmemory} counts the
     * dataset ({@code used_memory}), not the process: allocator fragmentation, client buffers and the server
     * itself live in the rest (a 512 MB sandbox filled to its 384 MB ceiling stays well inside its limit).
     */
    public static long maxmemory(long containerBytes) {
        return containerBytes / 4 * 3;
    }

    /**
     * {@code PING} as the admin through an exec over the server's unix socket: proves the container's own server is
     * up (and so holds its TCP port) before anything is sent over TCP, and that the admin password works.
     */
    @Override
    public ReadinessProbe readiness() {
        return target -> {
            ExecResult pong = target.exec().exec(cli("PING"), adminAuth(target.credentials()));
            if (!pong.ok() || !pong.stdout().strip().equals("PONG")) {
                throw new IllegalStateException("PING over " + SOCKET + " answered (exit code " + pong.exitCode()
                        + "): " + firstLine(pong.output()));
            }
        };
    }

    /**
     * What a Redis server logs once it listens on every address it was given ({@code Ready to accept connections}; a
     * port it cannot bind ends the server instead).
     */
    static final String LISTENING = "Ready to accept connections";

    /**
     * The container's own log says its server listens ({@value #LISTENING}): only the container's processes write that
     * log, and before the agent gets in the only one is the server, which logs the line after binding its TCP port. So
     * the port is proven the container's server's before anything is sent to it over TCP, as the exec of
     * {@link #readiness()} proves it, for a log read (a few ms of the daemon's CPU) instead of an exec (tens of ms of
     * the daemon's, the runtime's and a {@code redis-cli}'s). {@link #prepareAgent} then proves the admin password.
     */
    @Override
    public ReadinessProbe accepting() {
        return target -> {
            if (!target.logTail().get().contains(LISTENING)) {
                throw new IllegalStateException("the server has not logged \"" + LISTENING + "\" yet");
            }
        };
    }

    /**
     * {@code ACL SETUSER} with the password's SHA-256 ({@code #<hex>}), so the plaintext never reaches the server; then
     * agent AUTH + PING over TCP. The admin logs in over TCP on a loopback endpoint, proven the container's by
     * {@link #accepting()} (or {@link #readiness()}); on a network endpoint the command goes through an exec over the unix socket instead.
     */
    @Override
    public void prepareAgent(ProbeTarget target) throws Exception {
        Credentials c = target.credentials();
        List<String> rules = new ArrayList<>();
        rules.add("reset");
        rules.add("on");
        rules.add("#" + sha256Hex(c.password()));
        rules.addAll(AGENT_RULES);
        if (isLoopback(target.endpoint())) {
            try (Jedis admin = connect(target, Login.ADMIN)) {
                admin.aclSetUser(c.user(), rules.toArray(String[]::new));
                quietLog(admin);
            }
        } else {
            List<String> command = new ArrayList<>(List.of("ACL", "SETUSER", c.user()));
            command.addAll(rules);
            adminOk(target, command.toArray(String[]::new));
            quietLogByExec(target);
        }
        ping(target, Login.AGENT);
    }

    /**
     * Once the server is up (its start-up lines, and any failure to start, are logged as usual), the log is turned down
     * before the agent gets in: a Lua script may call {@code redis.log} with a message of any size, at any level.
     * {@code nothing} (Redis 7.2+) logs none of it; older servers only know {@code warning}, which still passes a
     * script's {@code redis.LOG_WARNING} lines: there the container's log cap on the host is the bound.
     */
    static void quietLog(Jedis admin) {
        try {
            admin.configSet("loglevel", "nothing");
        } catch (JedisDataException olderThan72) {
            admin.configSet("loglevel", "warning");
        }
    }

    /** {@link #quietLog} through an exec over the unix socket (admin work on a network endpoint). */
    static void quietLogByExec(ProbeTarget target) throws Exception {
        ExecResult nothing = admin(target, "CONFIG", "SET", "loglevel", "nothing");
        if (!nothing.ok() || !nothing.stdout().strip().equals("OK")) {
            adminOk(target, "CONFIG", "SET", "loglevel", "warning");
        }
    }

    /** One admin command through an exec over the unix socket; its answer must be {@code OK}. */
    private static void adminOk(ProbeTarget target, String... args) throws Exception {
        ExecResult result = admin(target, args);
        if (!result.ok() || !result.stdout().strip().equals("OK")) {
            throw new IllegalStateException(args[0] + " " + args[1] + " over " + SOCKET + " failed (exit code "
                    + result.exitCode() + "): " + firstLine(result.output()));
        }
    }

    private static ExecResult admin(ProbeTarget target, String... args) throws Exception {
        return target.exec().exec(cli(args), adminAuth(target.credentials()));
    }

    /** {@code redis-cli} on the server's unix socket with {@code args}; the admin password goes in the env. */
    static List<String> cli(String... args) {
        List<String> command = new ArrayList<>(List.of("redis-cli", "-s", SOCKET));
        command.addAll(List.of(args));
        return command;
    }

    private static Map<String, String> adminAuth(Credentials credentials) {
        return Map.of("REDISCLI_AUTH", credentials.adminPassword());
    }

    /** True for an endpoint on this host's loopback, where no other machine or container sees the bytes. */
    static boolean isLoopback(Endpoint endpoint) {
        String host = endpoint.host();
        return host.equals("localhost") || host.startsWith("127.") || host.equals("::1") || host.equals("[::1]");
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    /** The keyspace is the container's: a claim needs only the new ACL user, as a cold start does. */
    @Override
    public void prepareClaim(ProbeTarget target) throws Exception {
        prepareAgent(target);
    }

    @Override
    public ReadinessProbe liveness() {
        return Probes.allOf(Probes.running(), redisPing(Login.AGENT));
    }

    /** One held connection authenticated as the agent; a check is one {@code PING} on it. */
    @Override
    public LiveSession openLiveSession(ProbeTarget target) {
        Jedis jedis = connect(target, Login.AGENT);
        return new LiveSession() {
            @Override
            public boolean provesRunning() {
                return true;
            }

            @Override
            public synchronized void check() {
                String pong = jedis.ping();
                if (!"PONG".equals(pong)) {
                    throw new IllegalStateException("PING answered " + pong);
                }
            }

            @Override
            public void close() {
                try {
                    jedis.close();
                } catch (RuntimeException ignored) {
                    // the sandbox is going away
                }
            }
        };
    }

    /**
     * No-op when {@code MODULE LIST} already shows the module; otherwise {@code MODULE LOAD} of the first
     * module file found. The admin password reaches {@code redis-cli} as {@code REDISCLI_AUTH} in the
     * exec's env, never on its command line, and {@code redis-cli} talks to the server's unix socket.
     */
    @Override
    public void activate(AllowedFeature allowed, ContainerExec exec, Credentials credentials, String image)
            throws Exception {
        String feature = allowed.name();
        Module module = MODULES.get(feature);
        Map<String, String> auth = adminAuth(credentials);
        ExecResult list = exec.exec(cli("MODULE", "LIST"), auth);
        if (!list.ok() || list.stdout().startsWith("ERR") || list.stdout().startsWith("NOAUTH")) {
            throw new IllegalStateException("redis: MODULE LIST in image '" + image + "' failed with exit code "
                    + list.exitCode() + ": " + list.output());
        }
        if (loadedNames(list.stdout()).stream().anyMatch(module.names()::contains)) {
            return;
        }
        List<String> command = new ArrayList<>(List.of(
                "sh",
                "-c",
                "for f in \"$@\"; do if [ -f \"$f\" ]; then exec redis-cli -s " + SOCKET
                        + " MODULE LOAD \"$f\"; fi; done;" + " echo \"no module file among: $*\" >&2; exit 44",
                "sh"));
        command.addAll(module.files());
        ExecResult load = exec.exec(command, auth);
        if (load.exitCode() == 44) {
            throw new FeatureUnavailableException(name(), feature, image, "no module file among " + module.files());
        }
        if (!load.ok() || !load.stdout().strip().equals("OK")) {
            throw new IllegalStateException("redis: MODULE LOAD for '" + feature + "' in image '" + image
                    + "' failed with exit code " + load.exitCode() + ": " + load.output());
        }
    }

    /** The whole keyspace as an RDB file inside the container ({@link RedisCheckpoints}). */
    @Override
    public Optional<Checkpoints> checkpoints() {
        return Optional.of(CHECKPOINTS);
    }

    /** The keyspace against a checkpoint's RDB file, key by key ({@link RedisDataDiffs}). */
    @Override
    public Optional<DataDiffs> dataDiffs() {
        return Optional.of(DATA_DIFFS);
    }

    @Override
    public Map<String, String> env(Endpoint endpoint, Credentials credentials) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("ROBOCO_TEST_REDIS_HOST", endpoint.host());
        env.put("ROBOCO_TEST_REDIS_PORT", Integer.toString(endpoint.port()));
        env.put("ROBOCO_TEST_REDIS_USER", credentials.user());
        env.put("ROBOCO_TEST_REDIS_PASSWORD", credentials.password());
        env.put("ROBOCO_TEST_REDIS_URL", Urls.of("redis", credentials.user(), credentials.password(), endpoint, "0"));
        return Collections.unmodifiableMap(env);
    }

    // --- connections -------------------------------------------------------------------------

    /** Jedis {@code AUTH} with {@code login}'s credential, then {@code PING}. */
    static ReadinessProbe redisPing(Login login) {
        return target -> ping(target, login);
    }

    static void ping(ProbeTarget target, Login login) {
        try (Jedis jedis = connect(target, login)) {
            String pong = jedis.ping();
            if (!"PONG".equals(pong)) {
                throw new IllegalStateException("PING answered " + pong);
            }
        }
    }

    /** An authenticated Jedis connection with one-second connect and read timeouts; the caller closes it. */
    static Jedis connect(ProbeTarget target, Login login) {
        Credentials c = target.credentials();
        DefaultJedisClientConfig config = DefaultJedisClientConfig.builder()
                .user(login.user(c))
                .password(login.password(c))
                .connectionTimeoutMillis(1000)
                .socketTimeoutMillis(1000)
                .clientSetInfoConfig(ClientSetInfoConfig.DISABLED)
                .build();
        Jedis jedis = new Jedis(
                new HostAndPort(target.endpoint().host(), target.endpoint().port()), config);
        try {
            jedis.connect(); // AUTH happens here: fail now, not on first command
            return jedis;
        } catch (RuntimeException e) {
            jedis.close();
            throw e;
        }
    }

    /** The allowlisted feature a loaded module provides ({@code ft} → {@code search}), if it is one of them. */
    @Override
    public Optional<String> featureOfLoaded(String loadedModuleName) {
        return MODULES.entrySet().stream()
                .filter(e -> e.getValue().names().contains(loadedModuleName))
                .map(Map.Entry::getKey)
                .findFirst();
    }

    /** Module names in {@code redis-cli MODULE LIST} output (non-tty: one value per line, "name" then the name). */
    static List<String> loadedNames(String moduleList) {
        List<String> names = new ArrayList<>();
        String[] lines = moduleList.split("\n");
        for (int i = 0; i + 1 < lines.length; i++) {
            if (lines[i].strip().equals("name")) {
                names.add(lines[i + 1].strip());
            }
        }
        return names;
    }

    static String sha256Hex(String password) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(password.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String shellWord(String s) {
        if (!s.matches("[A-Za-z0-9.:_-]+")) {
            throw new IllegalArgumentException(
                    "bind host '" + Printable.of(s) + "' is not a plain host name or address");
        }
        return s;
    }
}
