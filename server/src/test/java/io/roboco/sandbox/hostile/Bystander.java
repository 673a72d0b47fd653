package io.roboco.sandbox.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.it.Probe;
import io.roboco.sandbox.testkit.ApiClient;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * An agent of another project that minds its own business while a hostile agent attacks: made before the attack,
 * checked after it. {@link #assertUnharmed()} holds when the server answers {@code /healthz}, the bystander's next
 * {@code request_sandbox} is a cache hit with the very credentials it had, and each of its services still serves
 * them.
 */
public final class Bystander {
    private final ApiClient api;
    private final String slug;
    private final Map<String, Map<String, String>> grants;
    private final BiFunction<String, Map<String, String>, String> use;

    private Bystander(
            ApiClient api,
            String slug,
            Map<String, Map<String, String>> grants,
            BiFunction<String, Map<String, String>, String> use) {
        this.api = api;
        this.slug = slug;
        this.grants = grants;
        this.use = use;
    }

    /** A developer of project {@code bystander-<slug>} with Postgres and Redis, its sandbox made and used once. */
    public static Bystander standing(ApiClient api, String slug) throws InterruptedException {
        return standing(api, slug, Probe::tryUse);
    }

    /**
     * {@link #standing(ApiClient, String)} whose services are used through {@code use} (service, env → null when they
     * worked, else why not): in network mode, from inside the bystander's own container, where its host names resolve.
     */
    public static Bystander standing(ApiClient api, String slug, BiFunction<String, Map<String, String>, String> use)
            throws InterruptedException {
        api.working(slug, "bystander-" + slug, "[\"postgres\",\"redis\"]");
        ApiClient.Reply r = api.requestSandboxRetrying(slug, 3);
        assertThat(r.ok()).as("bystander %s got its sandbox: %s", slug, r).isTrue();
        Bystander b = new Bystander(api, slug, r.grants(), use);
        b.assertServicesWork();
        return b;
    }

    /** The server is healthy and the bystander's sandbox is the one it had, working, with unchanged credentials. */
    public void assertUnharmed() {
        assertThat(healthy(api)).as("GET /healthz answers 200").isTrue();
        ApiClient.Reply again = api.requestSandbox(slug);
        assertThat(again.ok()).as("bystander %s still served: %s", slug, again).isTrue();
        assertThat(again.grants())
                .as("bystander %s keeps the very credentials it had", slug)
                .isEqualTo(grants);
        assertServicesWork();
    }

    private void assertServicesWork() {
        grants.forEach((service, env) -> assertThat(use.apply(service, env))
                .as("bystander %s's %s works", slug, service)
                .isNull());
    }

    /** {@code GET /healthz} answers 200. */
    public static boolean healthy(ApiClient api) {
        return api.send("GET", "/healthz", null, null).status() == 200;
    }

    /** The one line per attack class the hostile suite prints. */
    public static void figure(String attackClass, int attempts, int refused, boolean healthyAfter, String more) {
        System.out.println("[figure] " + attackClass + ": attempts=" + attempts + " refused=" + refused
                + " server_healthy_after=" + healthyAfter + (more == null || more.isBlank() ? "" : " " + more));
    }
}
