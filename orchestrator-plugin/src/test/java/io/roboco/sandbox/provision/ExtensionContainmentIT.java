package io.roboco.sandbox.provision;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.runtime.ContainerRuntime;
import java.time.Clock;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The allowlist is the containment, also against the agent itself. An agent owns its database, and a database owner
 * may {@code CREATE EXTENSION} any extension Postgres marks trusted; in the local images only the allowlisted
 * extensions exist. Checked as the agent, with {@code psql} and the handed-out URL, on both majors: every trusted
 * contrib extension off the allowlist is "not available", an allowlisted trusted one the agent may create itself,
 * and what the server offers at all is exactly the allowlist.
 */
class ExtensionContainmentIT {
    private static final String INSTANCE =
            "it-ext-" + UUID.randomUUID().toString().substring(0, 8);
    /** Contrib extensions Postgres 15 and 17 mark {@code trusted = true}; none is on the allowlist. */
    private static final List<String> TRUSTED_OFF_ALLOWLIST = List.of(
            "hstore",
            "pgcrypto",
            "ltree",
            "tablefunc",
            "intarray",
            "btree_gist",
            "btree_gin",
            "fuzzystrmatch",
            "unaccent",
            "cube",
            "seg",
            "isn",
            "lo",
            "tcn",
            "dict_int",
            "tsm_system_rows");

    private static ContainerRuntime runtime;
    private static ServiceProvisioner provisioner;

    @BeforeAll
    static void start() {
        runtime = LocalImages.requireDockerAndImages();
        ProvisionSettings settings = ProvisionSettings.defaults(INSTANCE)
                .withImages(LocalImages.IMAGES)
                .withMajorImages(LocalImages.MAJOR_IMAGES);
        provisioner = new ServiceProvisioner(runtime, settings, SecretSource.secure(), Clock.systemUTC());
    }

    @AfterAll
    static void cleanUp() {
        runtime.list(SandboxLabels.ofInstance(INSTANCE)).forEach(c -> runtime.remove(c.id()));
        runtime.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"15", "17"})
    void theAgentCanCreateNoExtensionOffTheAllowlist(String major) throws Exception {
        Engine postgres = EngineRegistry.defaults().require("postgres");
        ServiceInstance sandbox = provisioner.provision(
                Plans.onMajor(provisioner.settings(), postgres, major), "agent-ext-" + major, "it");
        String url = postgres.env(sandbox.endpoint(), sandbox.credentials()).get("ROBOCO_TEST_DB_URL");

        assertThat(
                        Psql.run(
                                url,
                                "SELECT pg_catalog.pg_has_role(current_user, datdba, 'USAGE') FROM pg_database WHERE datname = current_database();"))
                .as("the agent owns its database, which is what would let it create trusted extensions")
                .isEqualTo("t");
        for (String extension : TRUSTED_OFF_ALLOWLIST) {
            Psql.Result created = Psql.attempt(url, "CREATE EXTENSION \"" + extension + "\";");
            assertThat(created.exit())
                    .as("CREATE EXTENSION %s as the agent on %s: %s", extension, major, created.out())
                    .isNotZero();
            assertThat(created.out())
                    .as(extension)
                    .containsAnyOf("is not available", "could not open extension control file");
        }
        String offered = Psql.run(url, "SELECT string_agg(name, ',' ORDER BY name) FROM pg_available_extensions;");
        assertThat(offered)
                .isEqualTo(
                        major.equals("17")
                                ? "citext,pg_trgm,plpgsql,postgis,uuid-ossp,vector"
                                : "citext,pg_trgm,plpgsql,postgis,uuid-ossp");
        assertThat(Psql.run(
                        url, "CREATE EXTENSION pg_trgm; SELECT extname FROM pg_extension WHERE extname = 'pg_trgm';"))
                .as("an allowlisted trusted extension the agent may still create itself")
                .isEqualTo("CREATE EXTENSION\npg_trgm");
    }
}
