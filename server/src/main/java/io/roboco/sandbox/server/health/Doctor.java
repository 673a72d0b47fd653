package io.roboco.sandbox.server.health;

import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.plugin.SandboxPluginBuilder;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.request.DurationText;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.RuntimeInfo;
import io.roboco.sandbox.server.config.LifecycleConfig;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.settings.FlagStore;
import io.roboco.sandbox.settings.SettingsStore;
import io.roboco.sandbox.store.JdbcSettingsStore;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.CodeSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Health checks with fixes, for {@code GET /api/doctor} (asked of the running server) and the CLI's {@code doctor}
 * (which checks the machine itself when no server runs). Every check reports ok, warn or fail, what it found and
 * what to do. Nothing here prints a token or a password.
 */
public final class Doctor {
    /** What only a running server knows; null in the CLI's machine mode. */
    public record Live(
            boolean flagEffective,
            Map<String, Integer> poolTargets,
            Map<String, Integer> poolIdle,
            int capacityUsed,
            int capacityMax,
            Instant lastTick,
            Instant started,
            Duration tick) {}

    private final ServerConfig config;
    private final EngineRegistry registry;
    private final ProvisionSettings images;
    private final Supplier<ContainerRuntime> runtime;
    private final Supplier<SettingsStore> store;
    private final Live live;
    private final Clock clock;
    private final Path repoRoot;

    public Doctor(
            ServerConfig config,
            EngineRegistry registry,
            ProvisionSettings images,
            Supplier<ContainerRuntime> runtime,
            Supplier<SettingsStore> store,
            Live live,
            Clock clock,
            Path repoRoot) {
        this.config = config;
        this.registry = registry;
        this.images = images;
        this.runtime = runtime;
        this.store = store;
        this.live = live;
        this.clock = clock;
        this.repoRoot = repoRoot;
    }

    /** Every check, in a fixed order. */
    public List<DoctorCheck> run() {
        List<DoctorCheck> checks = new ArrayList<>();
        ContainerRuntime containers = null;
        RuntimeInfo info = RuntimeInfo.unknown();
        try {
            containers = runtime.get();
            info = containers.info();
            checks.add(reachable(info));
        } catch (RuntimeException e) {
            checks.add(unreachable(e));
            containers = null;
        }
        checks.addAll(images(containers));
        SettingsStore settings = null;
        try {
            settings = store.get();
            checks.add(
                    settings == null
                            ? DoctorCheck.warn(
                                    "store",
                                    "no embedded database in " + config.stateDir() + " yet",
                                    "the server creates it at its first start")
                            : storeCheck(settings));
        } catch (RuntimeException e) {
            checks.add(
                    DoctorCheck.fail(
                            "store",
                            "the settings store cannot be opened: " + e.getMessage(),
                            "check ROBOCO_SANDBOX_STATE_URL / _STATE_USER / _STATE_PASSWORD, or the state directory's permissions"));
        }
        checks.add(stateDir());
        checks.add(tokens());
        checks.add(SecretKeyCheck.check(config, settings));
        checks.add(flag(settings));
        checks.add(pool());
        checks.add(capacity(info));
        checks.add(janitor());
        checks.add(limits());
        return checks;
    }

    /** True when no check failed (warnings pass): the CLI's exit 0. */
    public static boolean passed(List<DoctorCheck> checks) {
        return checks.stream().noneMatch(c -> c.status() == DoctorCheck.Status.FAIL);
    }

    public static Map<String, Object> toJson(List<DoctorCheck> checks) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("ok", passed(checks));
        v.put("checks", checks.stream().map(DoctorCheck::toJson).toList());
        return v;
    }

    // --- checks ---------------------------------------------------------------------------

    /** The check of the runtime the server is configured with: {@code docker}, or {@code kubernetes}. */
    private String runtimeCheck() {
        return config.runtime().kubernetes() ? "kubernetes" : "docker";
    }

    private DoctorCheck reachable(RuntimeInfo info) {
        String capacity = info.cpus() + " CPUs, " + (info.memoryBytes() >> 20) + " MiB memory";
        if (config.runtime().kubernetes()) {
            return DoctorCheck.ok(
                    runtimeCheck(),
                    "Kubernetes " + info.serverVersion() + " reachable, namespace " + namespace() + ", " + capacity
                            + " for sandboxes");
        }
        return DoctorCheck.ok(
                runtimeCheck(),
                "Docker " + info.serverVersion() + " reachable, API " + info.apiVersion() + ", " + capacity);
    }

    private DoctorCheck unreachable(RuntimeException e) {
        if (config.runtime().kubernetes()) {
            return DoctorCheck.fail(
                    runtimeCheck(),
                    "the Kubernetes API (namespace " + namespace() + ") is not reachable: " + e.getMessage(),
                    "run the server in the cluster with the ServiceAccount and Role of deploy/kubernetes/, or set"
                            + " KUBECONFIG to a kubeconfig whose user may manage pods and network policies there");
        }
        return DoctorCheck.fail(
                runtimeCheck(),
                "the Docker daemon is not reachable: " + e.getMessage(),
                "start dockerd (./scripts/test.sh starts it), or point DOCKER_HOST at a reachable daemon");
    }

    private String namespace() {
        return config.runtime().kubernetesSettings(config.readyTimeout()).namespace();
    }

    private List<DoctorCheck> images(ContainerRuntime docker) {
        Map<String, String> recipes = recipeStates();
        List<DoctorCheck> out = new ArrayList<>();
        for (Engine engine : registry.all()) {
            Set<String> wanted = new LinkedHashSet<>();
            wanted.add(images.imageFor(engine));
            images.majorImages().getOrDefault(engine.name(), Map.of()).values().forEach(wanted::add);
            String setting = ServerConfig.IMAGE_PREFIX + engine.name().toUpperCase(Locale.ROOT);
            String name = "image:" + engine.name();
            if (docker == null) {
                out.add(DoctorCheck.fail(
                        name,
                        "not checked: " + (config.runtime().kubernetes() ? "the Kubernetes API" : "Docker")
                                + " is not reachable",
                        "fix the " + runtimeCheck() + " check first"));
                continue;
            }
            if (config.runtime().kubernetes()) {
                out.add(DoctorCheck.ok(
                        name,
                        String.join(", ", wanted) + " (pulled by the cluster's nodes, not checked from here; set "
                                + setting + " to an image they can pull)"));
                continue;
            }
            List<String> missing = new ArrayList<>();
            List<String> stale = new ArrayList<>();
            for (String image : wanted) {
                try {
                    if (!docker.hasImage(image)) {
                        missing.add(image);
                    } else if ("stale".equals(recipes.get(image))) {
                        stale.add(image);
                    }
                } catch (RuntimeException e) {
                    missing.add(image + " (" + e.getMessage() + ")");
                }
            }
            if (!missing.isEmpty()) {
                out.add(DoctorCheck.fail(
                        name,
                        engine.name() + " image " + String.join(", ", missing) + " is not present on the Docker host"
                                + " (images are never pulled)",
                        "local images: ./scripts/build-images.sh; others: docker pull it on the host," + " or set "
                                + setting + " to an image that is present"));
            } else if (!stale.isEmpty()) {
                out.add(DoctorCheck.warn(
                        name,
                        engine.name() + " image " + String.join(", ", stale) + " is present but its recipe"
                                + " under images/ changed since it was built",
                        "./scripts/build-images.sh (rebuilds only what changed)"));
            } else {
                String recipe =
                        wanted.stream().map(recipes::get).anyMatch(r -> r != null) ? " (local recipe current)" : "";
                out.add(DoctorCheck.ok(name, String.join(", ", wanted) + " present" + recipe));
            }
        }
        return out;
    }

    private DoctorCheck storeCheck(SettingsStore settings) {
        if (settings instanceof JdbcSettingsStore jdbc) {
            int version = jdbc.schemaVersion();
            String where =
                    config.stateUrl() == null ? "embedded H2 in " + config.stateDir() : "PostgreSQL " + jdbc.where();
            if (version != JdbcSettingsStore.currentSchemaVersion()) {
                return DoctorCheck.fail(
                        "store",
                        where + " at schema version " + version + ", this server knows "
                                + JdbcSettingsStore.currentSchemaVersion(),
                        "start this server once to migrate, or run the server that wrote it");
            }
            return DoctorCheck.ok("store", where + " reachable, schema version " + version);
        }
        settings.storedFlag(FlagStore.SANDBOX_DB_ENABLED);
        return DoctorCheck.ok(
                "store", settings.getClass().getSimpleName() + " reachable (in memory: nothing persists)");
    }

    private DoctorCheck stateDir() {
        Path dir = config.stateDir();
        if (!Files.isDirectory(dir)) {
            return DoctorCheck.warn(
                    "state-dir", dir + " does not exist yet", "it is created (mode 0700) at the server's first start");
        }
        try {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir);
            boolean others = perms.stream()
                    .anyMatch(p -> p.name().startsWith("GROUP") || p.name().startsWith("OTHERS"));
            String mode = PosixFilePermissions.toString(perms);
            return others
                    ? DoctorCheck.fail(
                            "state-dir",
                            dir + " has mode " + mode + ": others can read its tokens and database",
                            "chmod 700 " + dir)
                    : DoctorCheck.ok("state-dir", dir + " mode " + mode);
        } catch (UnsupportedOperationException | IOException e) {
            return DoctorCheck.warn(
                    "state-dir",
                    dir + ": permissions not readable (" + e.getMessage() + ")",
                    "keep the state directory readable by the server's user only");
        }
    }

    private DoctorCheck tokens() {
        List<String> from = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        token("api", config.apiToken(), "api-token", "ROBOCO_SANDBOX_API_TOKEN", from, missing);
        token("admin", config.adminToken(), "admin-token", "ROBOCO_SANDBOX_ADMIN_TOKEN", from, missing);
        if (!missing.isEmpty()) {
            return live != null
                    ? DoctorCheck.fail("tokens", "missing: " + String.join(", ", missing), "restart the server")
                    : DoctorCheck.warn(
                            "tokens",
                            "not yet generated: " + String.join(", ", missing),
                            "the server generates them at its first start (or set the variables)");
        }
        return DoctorCheck.ok("tokens", String.join("; ", from));
    }

    private void token(
            String what, String configured, String file, String setting, List<String> from, List<String> missing) {
        if (configured != null) {
            from.add(what + " token from " + setting);
        } else if (Files.isRegularFile(config.stateDir().resolve(file))) {
            from.add(what + " token in " + config.stateDir().resolve(file));
        } else {
            missing.add(what + " token (" + setting + " or " + config.stateDir().resolve(file) + ")");
        }
    }

    private DoctorCheck flag(SettingsStore settings) {
        Boolean stored = settings == null
                ? null
                : settings.storedFlag(FlagStore.SANDBOX_DB_ENABLED).orElse(null);
        Boolean env = config.dbEnabledOverride();
        boolean next = env != null ? env : Boolean.TRUE.equals(stored);
        String detail =
                "stored " + (stored == null ? "unset" : stored) + ", environment " + (env == null ? "unset" : env)
                        + (live == null
                                ? "; the next start: " + (next ? "on" : "off")
                                : "; effective " + (live.flagEffective() ? "on" : "off"));
        if (live != null && live.flagEffective() != next) {
            return DoctorCheck.warn(
                    "flag",
                    detail + " (pending restart: the next start takes " + (next ? "on" : "off") + ")",
                    "restart the server to apply the stored value");
        }
        if (!(live == null ? next : live.flagEffective())) {
            return DoctorCheck.warn(
                    "flag",
                    detail + ": request_sandbox is refused",
                    "turn ROBOCO_SANDBOX_DB_ENABLED on (Feature Flags page,"
                            + " PUT /api/flags/ROBOCO_SANDBOX_DB_ENABLED, or the environment) and restart");
        }
        return DoctorCheck.ok("flag", detail);
    }

    private DoctorCheck pool() {
        Map<String, Integer> targets = new TreeMap<>(live != null ? live.poolTargets() : config.poolSizes());
        targets.remove(ServerConfig.SEEDED_KEY);
        int seeded = config.seededPoolSize();
        String seededNote = seeded == 0
                ? ""
                : "; seeded pools (ROBOCO_SANDBOX_POOL_SEEDED): " + seeded + " ready per seeded project, made at"
                        + " its first request"
                        + (live == null
                                ? ""
                                : ", " + live.poolIdle().getOrDefault(ServerConfig.SEEDED_KEY, 0) + " ready now");
        if (targets.values().stream().allMatch(n -> n == 0)) {
            return DoctorCheck.ok(
                    "pool",
                    (seeded == 0
                                    ? "no warm pool (ROBOCO_SANDBOX_POOL_<ENGINE> unset): first requests start cold"
                                    : "no unseeded warm pool (ROBOCO_SANDBOX_POOL_<ENGINE> unset)")
                            + seededNote);
        }
        if (live == null) {
            return DoctorCheck.ok(
                    "pool", "configured " + targets + " (idle counts need the running server)" + seededNote);
        }
        List<String> low = new ArrayList<>();
        targets.forEach((key, size) -> {
            int idle = live.poolIdle().getOrDefault(key, 0);
            if (idle < size) {
                low.add(key + " " + idle + "/" + size);
            }
        });
        Map<String, Integer> idle = new TreeMap<>(live.poolIdle());
        idle.remove(ServerConfig.SEEDED_KEY);
        String state = "idle " + idle + " of " + targets + seededNote;
        Duration up = Duration.between(live.started(), clock.instant());
        if (!low.isEmpty() && up.compareTo(Duration.ofMinutes(1)) > 0) {
            return DoctorCheck.warn(
                    "pool",
                    state + "; below target: " + String.join(", ", low),
                    "a pool that stays low is being claimed faster than it refills, or cannot start containers (see the server"
                            + " log; capacity may be full)");
        }
        return DoctorCheck.ok("pool", state);
    }

    private DoctorCheck capacity(RuntimeInfo info) {
        long perContainer = images.limits().memoryBytes();
        int max = live != null
                ? live.capacityMax()
                : config.lifecycle().maxContainers() != null
                        ? config.lifecycle().maxContainers()
                        : info.memoryBytes() > 0
                                ? (int) Math.max(1, info.memoryBytes() / 4 * 3 / perContainer)
                                : SandboxPluginBuilder.FALLBACK_CAPACITY;
        String used = live == null ? "" : live.capacityUsed() + " of ";
        String detail = used + max + " sandbox containers x " + (perContainer >> 20) + " MiB"
                + (info.memoryBytes() > 0
                        ? " against " + (info.memoryBytes() >> 20)
                                + (config.runtime().kubernetes()
                                        ? " MiB the cluster gives the namespace"
                                        : " MiB host memory")
                        : "");
        if (info.memoryBytes() > 0 && (long) max * perContainer > info.memoryBytes()) {
            return DoctorCheck.warn(
                    "capacity",
                    detail + ": at capacity the sandboxes could ask for more memory than the host has",
                    "lower ROBOCO_SANDBOX_MAX_CONTAINERS (unset derives 3/4 of the host's memory)");
        }
        if (live != null && live.capacityUsed() >= max * 9 / 10 && max > 0) {
            return DoctorCheck.warn(
                    "capacity",
                    detail + ": 90% or more in use; requests get a retryable invalid_state at the cap",
                    "release or delete sandboxes (GET /api/sandboxes), shorten TTLs, or raise ROBOCO_SANDBOX_MAX_CONTAINERS");
        }
        return DoctorCheck.ok("capacity", detail);
    }

    private DoctorCheck janitor() {
        if (live == null) {
            return DoctorCheck.ok(
                    "janitor",
                    "not running (no server); it sweeps at the server's start and every "
                            + DurationText.format(config.janitorTick()));
        }
        Instant now = clock.instant();
        if (live.lastTick() == null) {
            Duration up = Duration.between(live.started(), now);
            return up.compareTo(live.tick().multipliedBy(2)) < 0
                    ? DoctorCheck.ok("janitor", "first sweep under way")
                    : DoctorCheck.fail(
                            "janitor",
                            "no sweep finished in " + DurationText.format(up) + " since start",
                            "see the server log for 'janitor' errors; restart the server");
        }
        Duration age = Duration.between(live.lastTick(), now);
        String detail =
                "last sweep " + Math.max(0, age.toSeconds()) + "s ago (tick " + DurationText.format(live.tick()) + ")";
        if (age.compareTo(live.tick().multipliedBy(3).plusSeconds(30)) > 0) {
            return DoctorCheck.fail(
                    "janitor",
                    detail + ": it has stopped sweeping",
                    "see the server log for 'janitor'; restart the server");
        }
        return DoctorCheck.ok("janitor", detail);
    }

    private DoctorCheck limits() {
        LifecycleConfig l = config.lifecycle();
        return DoctorCheck.ok(
                "limits",
                "TTL default " + DurationText.format(l.ttlDefault()) + ", max " + DurationText.format(l.ttlMax())
                        + " (a project may shorten both); per owner " + l.maxPerOwner() + " live sandboxes; capacity "
                        + (l.maxContainers() == null ? "derived from host memory" : l.maxContainers() + " containers")
                        + "; audit retention "
                        + DurationText.format(l.auditRetention()));
    }

    /** {@code scripts/build-images.sh --check} when the repository is at hand: image tag → current | stale | missing. */
    private Map<String, String> recipeStates() {
        Map<String, String> states = new LinkedHashMap<>();
        if (repoRoot == null || !Files.isRegularFile(repoRoot.resolve(BUILD_SCRIPT))) {
            return states;
        }
        try {
            ProcessBuilder builder = new ProcessBuilder(
                            shell(), repoRoot.resolve(BUILD_SCRIPT).toString(), "--check")
                    .directory(repoRoot.toFile())
                    .redirectErrorStream(true);
            builder.environment()
                    .put("PATH", absoluteEntries(builder.environment().getOrDefault("PATH", "")));
            Process p = builder.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return states;
            }
            for (String line : out.split("\n")) {
                String[] parts = line.trim().split(" ");
                if (parts.length == 2
                        && parts[0].contains("/")
                        && List.of("current", "stale", "missing").contains(parts[1])) {
                    states.put(parts[0], parts[1]);
                }
            }
        } catch (IOException e) {
            return states;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return states;
    }

    static final String BUILD_SCRIPT = "scripts/build-images.sh";

    /** bash by its absolute path: a {@code PATH} with relative entries must not pick a {@code bash} from the working directory. */
    private static String shell() {
        return Files.isExecutable(Path.of("/bin/bash")) ? "/bin/bash" : "/usr/bin/bash";
    }

    /** {@code PATH} without its empty and relative entries (each of which means "the working directory, or below it"). */
    static String absoluteEntries(String path) {
        return Arrays.stream(path.split(":", -1)).filter(e -> e.startsWith("/")).collect(Collectors.joining(":"));
    }

    /**
     * The checkout holding {@value #BUILD_SCRIPT}, never looked for from the working directory (a directory the operator
     * happens to stand in, perhaps an agent's checkout, must not get a script run): {@code ROBOCO_REPO_ROOT} when it is
     * an absolute path, else the checkout this server was built in (its jar or classes sit in {@code <root>/server/target}).
     * Null when neither holds the script and {@code images/}: the recipe check is skipped.
     */
    public static Path findRepoRoot(Map<String, String> env) {
        return findRepoRoot(env, codeLocation());
    }

    static Path findRepoRoot(Map<String, String> env, Path code) {
        String root = env.get("ROBOCO_REPO_ROOT");
        if (root != null && !root.isBlank()) {
            Path given = Path.of(root.trim());
            return given.isAbsolute() && isCheckout(given) ? given.normalize() : null;
        }
        if (code == null || code.getParent() == null || !code.getParent().endsWith(Path.of("server", "target"))) {
            return null;
        }
        Path checkout = code.getParent().getParent().getParent();
        return checkout != null && isCheckout(checkout) ? checkout : null;
    }

    private static boolean isCheckout(Path dir) {
        return Files.isRegularFile(dir.resolve(BUILD_SCRIPT)) && Files.isDirectory(dir.resolve("images"));
    }

    /** Where this class was loaded from (the jar, or a classes directory), absolute; null when the JVM does not say. */
    private static Path codeLocation() {
        try {
            CodeSource source = Doctor.class.getProtectionDomain().getCodeSource();
            return source == null
                    ? null
                    : Path.of(source.getLocation().toURI()).toAbsolutePath().normalize();
        } catch (URISyntaxException | RuntimeException e) {
            return null;
        }
    }
}
