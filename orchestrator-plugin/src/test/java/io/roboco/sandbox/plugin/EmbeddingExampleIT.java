package io.roboco.sandbox.plugin;

import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.runtime.ContainerRuntime;
import io.roboco.sandbox.runtime.ContainerState;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/embedding.md's example, run: the builder's defaults (Docker from the environment, the default
 * engines, an in-memory store) provision a real Postgres sandbox whose env works for the agent, and
 * nothing of the instance is left once the plugin closed. The local images stand in for the production ones.
 */
class EmbeddingExampleIT {
    private static final String INSTANCE = "embed-it-" + UUID.randomUUID().toString().substring(0, 8);
    private static ContainerRuntime docker;

    @BeforeAll
    static void dockerAndImages() {
        docker = LocalImages.requireDockerAndImages();
    }

    @AfterAll
    static void sweep() {
        List<ContainerState> left = docker.list(SandboxLabels.ofInstance(INSTANCE));
        left.forEach(c -> docker.remove(c.id()));
        docker.close();
        assertThat(left).as("containers of %s left after the example closed its plugin", INSTANCE).isEmpty();
    }

    @Test
    void theDocsExampleProvisionsAWorkingPostgresAndLeavesNothing() throws Exception {
        AtomicReference<String> answered = new AtomicReference<>();
        AtomicReference<List<ContainerState>> whileLive = new AtomicReference<>();
        EmbeddingExample.runOneAgent(INSTANCE, LocalImages.IMAGES, env -> {
            whileLive.set(docker.list(SandboxLabels.ofInstance(INSTANCE)));
            assertThat(env.get("ROBOCO_TEST_DB_HOST")).isEqualTo("127.0.0.1");
            String url = "jdbc:postgresql://127.0.0.1:" + env.get("ROBOCO_TEST_DB_PORT") + "/" + env.get("ROBOCO_TEST_DB_NAME")
                    + "?connectTimeout=10&socketTimeout=30";
            try (Connection c = DriverManager.getConnection(url, env.get("ROBOCO_TEST_DB_USER"), env.get("ROBOCO_TEST_DB_PASSWORD"));
                 Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT current_user || ' ' || (similarity('sandbox', 'sandboxes') > 0.5)")) {
                rs.next();
                answered.set(rs.getString(1));
            } catch (Exception e) {
                throw new AssertionError("the granted env did not open its database: " + e.getMessage(), e);
            }
        });
        assertThat(answered.get()).as("logged in as the agent, pg_trgm active").endsWith(" true").startsWith("agent_");
        assertThat(whileLive.get()).as("the sandbox container, labelled with the instance id").hasSize(1)
                .allSatisfy(c -> assertThat(c.labels()).containsEntry(SandboxLabels.SERVICE, "postgres"));
        assertThat(docker.list(SandboxLabels.ofInstance(INSTANCE))).as("released with the engagement").isEmpty();
    }
}
