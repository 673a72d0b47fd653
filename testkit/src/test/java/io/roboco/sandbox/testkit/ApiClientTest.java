package io.roboco.sandbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ApiClientTest {
    @Test
    void toStringNamesTheServerButNeverATokenOrPassword() {
        ApiClient client = new ApiClient(7071, "orchestrator-secret-0123456789", "admin-secret-0123456789");
        assertThat(client.toString())
                .contains("127.0.0.1:7071")
                .contains("<redacted>")
                .doesNotContain("orchestrator-secret")
                .doesNotContain("admin-secret");
        ApiClient.Reply reply = new ApiClient.Reply(
                200,
                "{\"env\":{\"ROBOCO_TEST_DB_PASSWORD\":\"s3cretpw\",\"ROBOCO_TEST_DB_URL\":\"postgresql://agent_x:s3cretpw@127.0.0.1:5432/db\"}}");
        assertThat(reply.toString()).doesNotContain("s3cretpw").contains("agent_x");
        assertThat(reply.json()).containsKey("env");
    }
}
