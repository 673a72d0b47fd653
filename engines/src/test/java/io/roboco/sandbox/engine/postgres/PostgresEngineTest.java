package io.roboco.sandbox.engine.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.FeatureUnavailableException;
import io.roboco.sandbox.engine.Features;
import io.roboco.sandbox.engine.RecordingExec;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.engine.SpecRequest;
import io.roboco.sandbox.engine.UnknownNameException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PostgresEngineTest {
    private final PostgresEngine engine = new PostgresEngine();
    private final Credentials credentials = engine.newCredentials(SecretSource.secure());

    @Test
    void credentialsNameAdminAgentAndDatabase() {
        assertThat(credentials.adminUser()).isEqualTo("roboco_admin");
        assertThat(credentials.user()).matches("agent_[a-z0-9]{10}");
        assertThat(credentials.database())
                .isEqualTo("sandbox_" + credentials.user().substring("agent_".length()));
    }

    @Test
    void anImageThatRunsInitdbAtStartIsToldToDemandScramOnHostLinesAndOursIsNot() {
        assertThat(engine.containerSpec(new SpecRequest("postgres:16-alpine", credentials, "127.0.0.1", 41000))
                        .env())
                .containsEntry("POSTGRES_INITDB_ARGS", "--auth-host=scram-sha-256 --auth-local=trust");
        assertThat(engine.containerSpec(new SpecRequest("roboco-sandbox/postgres:15", credentials, "127.0.0.1", 41000))
                        .env())
                .doesNotContainKey("POSTGRES_INITDB_ARGS");
    }

    @Test
    void containerSpecFollowsTheOfficialImageContractWithDurabilityOff() {
        ContainerSpec spec =
                engine.containerSpec(new SpecRequest("postgres:16-alpine", credentials, "127.0.0.1", 41000));
        assertThat(spec.env())
                .containsEntry("POSTGRES_USER", "roboco_admin")
                .containsEntry("POSTGRES_PASSWORD", credentials.adminPassword())
                .containsEntry("POSTGRES_DB", credentials.database())
                .containsEntry("PGDATA", "/var/lib/postgresql/data")
                .containsEntry("PGPORT", "41000");
        assertThat(spec.command())
                .startsWith("postgres")
                .contains(
                        "listen_addresses=127.0.0.1",
                        "port=41000",
                        "fsync=off",
                        "synchronous_commit=off",
                        "full_page_writes=off")
                .contains(
                        "wal_level=minimal",
                        "max_wal_senders=0",
                        "max_wal_size=64MB",
                        "min_wal_size=32MB",
                        "autovacuum_naptime=300");
        assertThat(spec.dataDir()).isEqualTo("/var/lib/postgresql/data");
    }

    @Test
    void serverLogKeepsOnlyFatalMessagesAndNeverQuotesAStatement() {
        ContainerSpec spec =
                engine.containerSpec(new SpecRequest("postgres:16-alpine", credentials, "127.0.0.1", 41000));
        assertThat(spec.command())
                .containsSubsequence("-c", "log_min_messages=fatal")
                .containsSubsequence("-c", "log_min_error_statement=panic");
    }

    @Test
    void envHasExactlyTheDbKeysAndAPostgresqlUrl() {
        Map<String, String> env = engine.env(new Endpoint("127.0.0.1", 41000), credentials);
        assertThat(env)
                .containsOnlyKeys(
                        "ROBOCO_TEST_DB_HOST",
                        "ROBOCO_TEST_DB_PORT",
                        "ROBOCO_TEST_DB_NAME",
                        "ROBOCO_TEST_DB_USER",
                        "ROBOCO_TEST_DB_PASSWORD",
                        "ROBOCO_TEST_DB_URL");
        assertThat(env.get("ROBOCO_TEST_DB_URL"))
                .isEqualTo("postgresql://" + credentials.user() + ":" + credentials.password() + "@127.0.0.1:41000/"
                        + credentials.database());
        assertThat(env.get("ROBOCO_TEST_DB_NAME")).isEqualTo(credentials.database());
    }

    @Test
    void activationRunsCreateExtensionThroughLocalPsqlWithoutAPasswordPinnedToPublicAndTheCatalogPath()
            throws Exception {
        RecordingExec exec = new RecordingExec().answer(0, "", "");
        engine.activate(Features.require(engine, "uuid-ossp"), exec, credentials, "img");
        assertThat(exec.calls).singleElement().satisfies(call -> {
            assertThat(call.command())
                    .containsSubsequence(
                            "psql",
                            "-v",
                            "ON_ERROR_STOP=1",
                            "-U",
                            "roboco_admin",
                            "-d",
                            credentials.database(),
                            "-c",
                            "CREATE EXTENSION IF NOT EXISTS \"uuid-ossp\" SCHEMA public");
            assertThat(String.join(" ", call.command()))
                    .doesNotContain(credentials.adminPassword())
                    .doesNotContain(credentials.password());
            assertThat(call.env())
                    .as("the admin's search_path pinned over the agent's database settings")
                    .containsOnly(Map.entry("PGOPTIONS", "-c search_path=pg_catalog,pg_temp"));
        });
    }

    @Test
    void featureOffTheAllowlistCannotBeAllowedSoNeverReachesActivation() {
        assertThatThrownBy(() -> Features.require(engine, "plpython3u"))
                .isInstanceOf(UnknownNameException.class)
                .hasMessageContaining("allowed: citext, pg_trgm, postgis, uuid-ossp, vector");
        assertThat(Features.allow(engine, "\u0441itext")).isEmpty();
        assertThat(Features.allow(engine, null)).isEmpty();
    }

    @Test
    void missingExtensionIsReportedAsUnavailableNamingFeatureAndImage() {
        RecordingExec exec = new RecordingExec()
                .answer(
                        1,
                        "",
                        "ERROR:  extension \"vector\" is not available\n"
                                + "DETAIL:  Could not open extension control file \"/usr/share/postgresql/15/extension/vector.control\": No such file or directory.\n");
        assertThatThrownBy(() -> engine.activate(
                        Features.require(engine, "vector"), exec, credentials, "roboco-sandbox/postgres:15"))
                .isInstanceOf(FeatureUnavailableException.class)
                .hasMessageContaining("'vector'")
                .hasMessageContaining("'roboco-sandbox/postgres:15'")
                .hasMessageContaining("is not available");
    }

    @Test
    void otherActivationFailuresCarryTheOutput() {
        RecordingExec exec = new RecordingExec().answer(2, "", "psql: error: connection to server on socket failed");
        assertThatThrownBy(() -> engine.activate(Features.require(engine, "citext"), exec, credentials, "img"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exit code 2")
                .hasMessageContaining("connection to server on socket failed");
    }

    @Test
    void identifiersAndLiteralsAreQuoted() {
        assertThat(PostgresEngine.identifier("agent_x")).isEqualTo("\"agent_x\"");
        assertThat(PostgresEngine.identifier("a\"b")).isEqualTo("\"a\"\"b\"");
        assertThat(PostgresEngine.literal("it's")).isEqualTo("'it''s'");
        assertThatThrownBy(() -> PostgresEngine.literal("a\\b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PostgresEngine.identifier("a\0b")).isInstanceOf(IllegalArgumentException.class);
    }
}
