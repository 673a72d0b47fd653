package io.roboco.sandbox.provision;

import io.roboco.sandbox.engine.AllowedFeature;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.Features;
import java.util.Set;
import java.util.TreeSet;

/** Service plans for tests that drive the provisioner or the pool directly (the plugin makes them in its guard chain). */
public final class Plans {
    private Plans() {}

    /** On the server's configured image of {@code engine}. */
    public static ServicePlan of(ProvisionSettings settings, Engine engine, String... features) {
        return onMajor(settings, engine, null, features);
    }

    /** On the image of {@code major} (null: the configured image). */
    public static ServicePlan onMajor(ProvisionSettings settings, Engine engine, String major, String... features) {
        Set<AllowedFeature> allowed = new TreeSet<>();
        for (String feature : features) {
            allowed.add(Features.require(engine, feature));
        }
        return new ServicePlan(engine, settings.choose(engine, major), allowed);
    }
}
