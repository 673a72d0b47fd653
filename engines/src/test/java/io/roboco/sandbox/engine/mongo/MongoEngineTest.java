package io.roboco.sandbox.engine.mongo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.ConnectionString;
import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.Features;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.engine.SpecRequest;
import io.roboco.sandbox.engine.UnknownNameException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MongoEngineTest {
    private final MongoEngine engine = new MongoEngine();
    private final Credentials credentials = engine.newCredentials(SecretSource.secure());

    @Test
    void containerSpecUsesTheOfficialRootUserContract() {
        ContainerSpec spec = engine.containerSpec(new SpecRequest("mongo:8", credentials, "127.0.0.1", 43000));
        assertThat(spec.env())
                .containsOnly(
                        Map.entry("MONGO_INITDB_ROOT_USERNAME", "roboco_admin"),
                        Map.entry("MONGO_INITDB_ROOT_PASSWORD", credentials.adminPassword()));
        assertThat(spec.command())
                .containsExactly(
                        "mongod",
                        "--bind_ip",
                        "127.0.0.1",
                        "--port",
                        "43000",
                        "--quiet",
                        "--setParameter",
                        "maxLogSizeKB=4",
                        "--setParameter",
                        "scramIterationCount=5000",
                        "--setParameter",
                        "scramSHA256IterationCount=4096");
        assertThat(spec.dataDir()).isEqualTo("/data/db");
    }

    @Test
    void envHasExactlyTheMongoKeysAndAUrlTheDriverParses() {
        Map<String, String> env = engine.env(new Endpoint("127.0.0.1", 43000), credentials);
        assertThat(env)
                .containsOnlyKeys(
                        "ROBOCO_TEST_MONGO_HOST",
                        "ROBOCO_TEST_MONGO_PORT",
                        "ROBOCO_TEST_MONGO_NAME",
                        "ROBOCO_TEST_MONGO_USER",
                        "ROBOCO_TEST_MONGO_PASSWORD",
                        "ROBOCO_TEST_MONGO_URL");
        ConnectionString url = new ConnectionString(env.get("ROBOCO_TEST_MONGO_URL"));
        assertThat(url.getHosts()).containsExactly("127.0.0.1:43000");
        assertThat(url.getDatabase()).isEqualTo(credentials.database());
        assertThat(url.getCredential().getUserName()).isEqualTo(credentials.user());
        assertThat(url.getCredential().getSource()).isEqualTo(credentials.database());
        assertThat(new String(url.getCredential().getPassword())).isEqualTo(credentials.password());
    }

    @Test
    void everyFeatureIsRefused() {
        assertThatThrownBy(() -> Features.require(engine, "search"))
                .isInstanceOf(UnknownNameException.class)
                .hasMessageEndingWith("allowed: none");
        assertThat(engine.features()).isEmpty();
    }
}
