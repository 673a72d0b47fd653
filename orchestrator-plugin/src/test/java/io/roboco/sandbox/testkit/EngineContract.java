package io.roboco.sandbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.engine.SpecRequest;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What every {@link Engine} promises, whatever its kind, without a container: the agent's secret never
 * reaches the container's spec, the admin secret never its command line, credentials are fresh and
 * redacted, the env's URL agrees with its parts. Each registered engine and {@link StubEngine} pass it;
 * a subclass names the engine. What needs a running service is each engine's own IT.
 */
public abstract class EngineContract {
    private static final SecretSource SECRETS = SecretSource.secure();

    /** The engine under test. */
    protected abstract Engine engine();

    @Test
    void containerSpecNeverCarriesTheAgentPassword() {
        Engine engine = engine();
        Credentials c = engine.newCredentials(SECRETS);
        for (SpecRequest request : new SpecRequest[] {
            new SpecRequest(engine.defaultImage(), c, "127.0.0.1", 40123),
            new SpecRequest(engine.defaultImage(), c, "0.0.0.0", engine.defaultPort())
        }) {
            ContainerSpec spec = engine.containerSpec(request);
            assertThat(spec.env().values()).noneMatch(v -> v.contains(c.password()));
            assertThat(spec.env().keySet()).noneMatch(k -> k.contains(c.password()));
            assertThat(spec.command()).noneMatch(arg -> arg.contains(c.password()));
            assertThat(spec.image()).isEqualTo(engine.defaultImage());
            assertThat(spec.port()).isEqualTo(request.port());
            assertThat(spec.dataDir()).startsWith("/");
            assertThat(spec.toString()).doesNotContain(c.password()).doesNotContain(c.adminPassword());
        }
    }

    @Test
    void adminPasswordIsNeverOnTheCommandLine() {
        Engine engine = engine();
        Credentials c = engine.newCredentials(SECRETS);
        ContainerSpec spec = engine.containerSpec(new SpecRequest(engine.defaultImage(), c, "127.0.0.1", 40123));
        assertThat(spec.command()).noneMatch(arg -> arg.contains(c.adminPassword()));
        assertThat(spec.env().values()).contains(c.adminPassword());
    }

    @Test
    void serviceListensOnTheRequestedHostAndPort() {
        Engine engine = engine();
        Credentials c = engine.newCredentials(SECRETS);
        String command = String.join(
                " ",
                engine.containerSpec(new SpecRequest("img", c, "127.0.0.1", 40123))
                        .command());
        assertThat(command).contains("127.0.0.1").contains("40123");
    }

    @Test
    void freshCredentialsDifferAndSeparateAgentFromAdmin() {
        Engine engine = engine();
        Credentials a = engine.newCredentials(SECRETS);
        Credentials b = engine.newCredentials(SECRETS);
        assertThat(a.user()).startsWith("agent_").isNotEqualTo(a.adminUser()).isNotEqualTo(b.user());
        assertThat(a.password()).isNotEqualTo(a.adminPassword()).isNotEqualTo(b.password());
        assertThat(a.adminPassword()).isNotEqualTo(b.adminPassword());
        assertThat(a.user()).matches("agent_[a-z0-9]+");
    }

    @Test
    void credentialsToStringRedactsBothPasswords() {
        Engine engine = engine();
        Credentials c = engine.newCredentials(SECRETS);
        assertThat(c.toString())
                .doesNotContain(c.password())
                .doesNotContain(c.adminPassword())
                .contains(c.user())
                .contains("<redacted>");
    }

    @Test
    void envUrlCarriesTheSameHostPortUserAndPassword() {
        Engine engine = engine();
        Credentials c = engine.newCredentials(SECRETS);
        Map<String, String> env = engine.env(new Endpoint("sandbox-pg-1", 5999), c);
        String prefix = env.keySet().iterator().next().replaceAll("HOST$", "");
        URI url = URI.create(env.get(prefix + "URL"));
        assertThat(url.getHost()).isEqualTo(env.get(prefix + "HOST")).isEqualTo("sandbox-pg-1");
        assertThat(url.getPort()).isEqualTo(5999).isEqualTo(Integer.parseInt(env.get(prefix + "PORT")));
        assertThat(url.getUserInfo()).isEqualTo(env.get(prefix + "USER") + ":" + env.get(prefix + "PASSWORD"));
        assertThat(env.get(prefix + "USER")).isEqualTo(c.user());
        assertThat(env.get(prefix + "PASSWORD")).isEqualTo(c.password());
        assertThat(env.values()).noneMatch(v -> v.contains(c.adminPassword()));
    }

    @Test
    void featuresKeyIsPresentExactlyWhenThereAreFeatures() {
        Engine engine = engine();
        assertThat(engine.featuresKey() == null).isEqualTo(engine.features().isEmpty());
        assertThat(engine.name()).matches("[a-z]+");
    }
}
