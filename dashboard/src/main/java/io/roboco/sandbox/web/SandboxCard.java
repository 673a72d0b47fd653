package io.roboco.sandbox.web;

import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * The project settings page's Sandbox card, generated from the engine registry: one checkbox per
 * registered engine and, under an engine with an allowlist, one per extension or module. A new
 * engine in the registry appears here with no change to the page.
 */
public record SandboxCard(List<EngineOption> engines, Lifecycle lifecycle) {

    /**
     * The card's lifecycle fields as the form shows them (empty: the server's setting).
     *
     * @param serverTtlDefault the server's TTL default and max, shown as what an empty field means
     */
    public record Lifecycle(String ttlDefault, String ttlMax, String maxLive, String serverTtlDefault, String serverTtlMax,
                            int serverMaxPerOwner) {
    }

    public SandboxCard(List<EngineOption> engines) {
        this(engines, new Lifecycle("", "", "", "", "", 0));
    }

    /** The same card with its lifecycle fields filled. */
    public SandboxCard withLifecycle(Lifecycle next) {
        return new SandboxCard(engines, next);
    }

    /**
     * @param majors  the majors a project may pick (empty: the engine offers no choice)
     * @param version the picked major, or empty for the server's configured image
     * @param seed    how the project's seed for this engine reads ({@code sql (120 bytes)}, {@code clone of $SHOP_DB_URL …}), or empty
     */
    public record EngineOption(String name, String displayName, boolean checked, String featuresLabel, List<FeatureOption> features,
                               List<String> majors, String version, String seed) {
    }

    public record FeatureOption(String name, boolean checked) {
    }

    /** The card with {@code services} and {@code features} (engine → names) checked, on no picked major. */
    static SandboxCard of(EngineRegistry registry, Collection<String> services, Map<String, ? extends Collection<String>> features) {
        return of(registry, services, features, Map.of(), Map.of());
    }

    /** The card with {@code services} and {@code features} checked and {@code versions} (engine → major) picked. */
    static SandboxCard of(EngineRegistry registry, Collection<String> services, Map<String, ? extends Collection<String>> features,
                          Map<String, String> versions, Map<String, String> seeds) {
        List<EngineOption> engines = new ArrayList<>();
        for (Engine engine : registry.all()) {
            Collection<String> chosen = features.containsKey(engine.name()) ? features.get(engine.name()) : List.of();
            List<FeatureOption> options = new ArrayList<>();
            for (String feature : new TreeSet<>(engine.features())) {
                options.add(new FeatureOption(feature, chosen.contains(feature)));
            }
            engines.add(new EngineOption(engine.name(), engine.displayName(), services.contains(engine.name()),
                    label(engine.featuresKey()), options, engine.majors(), versions.getOrDefault(engine.name(), ""),
                    seeds.getOrDefault(engine.name(), "")));
        }
        return new SandboxCard(engines);
    }

    /** {@code available_extensions} → Extensions; {@code available_modules} → Modules. */
    static String label(String featuresKey) {
        if (featuresKey == null || featuresKey.isBlank()) {
            return "Features";
        }
        String word = featuresKey.startsWith("available_") ? featuresKey.substring("available_".length()) : featuresKey;
        word = word.replace('_', ' ');
        return word.substring(0, 1).toUpperCase(Locale.ROOT) + word.substring(1);
    }
}
