package io.roboco.sandbox.restart;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.it.Probe;
import io.roboco.sandbox.testkit.ApiClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The restart ITs' agents: six developers in three projects whose sets cover postgres, redis and mongo; what each was
 * granted, and checks of those grants with the real clients.
 */
final class Agents {
    /** Agent slug → project; each project's services below. */
    static final Map<String, String> PROJECTS = new LinkedHashMap<>();

    static final Map<String, String> SERVICES = Map.of(
            "full", "[\"postgres\",\"redis\",\"mongo\"]",
            "web", "[\"postgres\",\"redis\"]",
            "docs", "[\"mongo\",\"redis\"]");

    static {
        PROJECTS.put("keep-a", "full");
        PROJECTS.put("keep-b", "full");
        PROJECTS.put("keep-c", "web");
        PROJECTS.put("keep-d", "web");
        PROJECTS.put("keep-e", "docs");
        PROJECTS.put("keep-f", "docs");
    }

    private Agents() {}

    /** Every agent working and holding its project's whole set; the grants by agent, each checked with the real client. */
    static Map<String, Map<String, Map<String, String>>> provisionAll(ApiClient api) throws InterruptedException {
        Map<String, Map<String, Map<String, String>>> grants = new LinkedHashMap<>();
        for (Map.Entry<String, String> a : PROJECTS.entrySet()) {
            api.working(a.getKey(), a.getValue(), SERVICES.get(a.getValue()));
            ApiClient.Reply r = api.requestSandboxRetrying(a.getKey(), 3);
            assertThat(r.ok()).as("%s: %s", a.getKey(), r).isTrue();
            grants.put(a.getKey(), r.grants());
            assertThat(failures(r.grants()))
                    .as("fresh grants of %s work", a.getKey())
                    .isEmpty();
        }
        return grants;
    }

    /** Each failing service of a set, "service: why" (passwords redacted); empty when every credential works. */
    static List<String> failures(Map<String, Map<String, String>> grants) {
        List<String> failed = new ArrayList<>();
        grants.forEach((service, env) -> {
            String failure = Probe.tryUse(service, env);
            if (failure != null) {
                failed.add(service + ": " + failure);
            }
        });
        return failed;
    }

    static String password(String service, Map<String, String> env) {
        return switch (service) {
            case "postgres" -> env.get("ROBOCO_TEST_DB_PASSWORD");
            case "redis" -> env.get("ROBOCO_TEST_REDIS_PASSWORD");
            case "mongo" -> env.get("ROBOCO_TEST_MONGO_PASSWORD");
            default -> throw new IllegalArgumentException(service);
        };
    }

    /** The median of some latencies, in ms. */
    static double p50(List<Double> millis) {
        List<Double> sorted = new ArrayList<>(millis);
        sorted.sort(Double::compare);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
