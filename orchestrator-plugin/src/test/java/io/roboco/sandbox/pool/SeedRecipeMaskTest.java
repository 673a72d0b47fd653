package io.roboco.sandbox.pool;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.MaskRule;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.provision.Seed;
import io.roboco.sandbox.provision.ServicePlan;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A clone's masking rules are part of its seed's digest: new rules are a new seeded pool, never the old one's rows. */
class SeedRecipeMaskTest {
    private static final Engine POSTGRES = EngineRegistry.defaults().require("postgres");

    @Test
    void anotherMaskIsAnotherDigest() {
        String none = digest(new Seed.Clone("SRC", 10));
        String hash = digest(new Seed.Clone("SRC", 10, Map.of("public.users.email", new MaskRule.Hash())));
        String fake = digest(new Seed.Clone("SRC", 10, Map.of("public.users.email", new MaskRule.FakeEmail())));
        assertThat(Set.of(none, hash, fake)).hasSize(3);
        assertThat(digest(new Seed.Clone("SRC", 10, Map.of("public.users.email", new MaskRule.Hash()))))
                .isEqualTo(hash);
    }

    private static String digest(Seed seed) {
        return SeedRecipe.digestOf(
                new ServicePlan(POSTGRES, ProvisionSettings.defaults("test").choose(POSTGRES, null), Set.of(), seed));
    }
}
