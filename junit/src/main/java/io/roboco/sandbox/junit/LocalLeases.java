package io.roboco.sandbox.junit;

import io.roboco.sandbox.plugin.SandboxDecision;
import io.roboco.sandbox.plugin.SandboxPlugin;
import io.roboco.sandbox.settings.Agent;
import io.roboco.sandbox.settings.Project;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Leases from the local Docker host through the embedded plugin, built with {@code SandboxPlugin.builder()} as the
 * server builds it: one plugin per test run (instance id {@code junit-<pid>} on every container), closed at the run's
 * end, which removes whatever is still live. Each lease is one embedded agent's sandbox in a project holding exactly
 * the lease's services. Images: {@code ROBOCO_SANDBOX_IMAGE_POSTGRES} / {@code _REDIS} / {@code _MONGO} when set
 * (as for the server), else each engine's production image, which must be present on the Docker host.
 */
final class LocalLeases implements LeaseSource {
    private static final List<String> ENGINES = List.of("postgres", "redis", "mongo");

    private final SandboxPlugin plugin;
    private final AtomicInteger next = new AtomicInteger();
    /** lease id → the embedded agent holding it. */
    private final Map<String, String> agents = new ConcurrentHashMap<>();

    LocalLeases() {
        Map<String, String> images = new LinkedHashMap<>();
        for (String engine : ENGINES) {
            String image = Env.setting("ROBOCO_SANDBOX_IMAGE_" + engine.toUpperCase(Locale.ROOT));
            if (image != null) {
                images.put(engine, image);
            }
        }
        this.plugin = SandboxPlugin.builder()
                .instanceId("junit-" + ProcessHandle.current().pid())
                .images(images)
                .featureFlag(true)
                .build();
    }

    @Override
    public Lease lease(LeaseRequest r) throws InterruptedException {
        if (r.template() != null) {
            throw new IllegalStateException("template '" + r.template() + "' needs a RoboCo server (templates are kept"
                    + " there): set ROBOCO_SANDBOX_URL and ROBOCO_SANDBOX_CLIENT_TOKEN, or use seed = \"…sql\"");
        }
        String slug = "junit-" + next.incrementAndGet();
        // A project per service set: the verb provisions its project's whole set, so a lease gets exactly its own.
        String project = r.project() + "." + String.join("-", r.services());
        plugin.store().saveProject(new Project(project, r.project(), r.services(), Map.of()));
        plugin.store().saveAgent(new Agent(slug, "developer", project, r.name()));
        SandboxDecision decision = plugin.requestSandbox(slug, r.services(), Map.of());
        if (!(decision instanceof SandboxDecision.Granted granted)) {
            plugin.store().deleteAgent(slug);
            throw new IllegalStateException("the local Docker host made no sandbox " + r.services() + ": " + decision);
        }
        Map<String, Map<String, String>> env = new LinkedHashMap<>();
        for (SandboxDecision.Grant g : granted.sandboxes()) {
            env.put(g.service(), g.env());
        }
        String id = granted.sandboxId() == null ? slug : granted.sandboxId();
        agents.put(id, slug);
        return new Lease(id, env, this);
    }

    @Override
    public void release(Lease lease) {
        String slug = agents.remove(lease.id());
        if (slug != null) {
            plugin.releaseSandbox(slug, "i_am_done");
            plugin.store().deleteAgent(slug);
        }
    }

    @Override
    public String describe() {
        return "the local Docker host (embedded plugin)";
    }

    @Override
    public String defaultProject() {
        return "junit";
    }

    @Override
    public void close() {
        plugin.close();
    }
}
