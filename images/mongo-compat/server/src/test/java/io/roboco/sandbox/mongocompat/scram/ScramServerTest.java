package io.roboco.sandbox.mongocompat.scram;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/**
 * The SCRAM state machine against the published conversations: RFC 5802 section 5 (SCRAM-SHA-1, plain
 * password), RFC 7677 section 3 (SCRAM-SHA-256) and the MongoDB authentication spec's SCRAM-SHA-1 example
 * (password = hex MD5 of {@code user:mongo:pencil}). The server nonce is the vector's, injected.
 */
class ScramServerTest {
    private record Vector(ScramMechanism mechanism, String scramPassword, String clientFirst, String serverFirst,
                          String clientFinal, String serverFinal) {
        String clientNonce() {
            return clientFirst.substring(clientFirst.indexOf(",r=") + 3);
        }

        String serverNonce() {
            String nonce = serverFirst.substring(2, serverFirst.indexOf(','));
            return nonce.substring(clientNonce().length());
        }

        byte[] salt() {
            String s = serverFirst.substring(serverFirst.indexOf(",s=") + 3, serverFirst.indexOf(",i="));
            return Base64.getDecoder().decode(s);
        }

        int iterations() {
            return Integer.parseInt(serverFirst.substring(serverFirst.indexOf(",i=") + 3));
        }

        ScramServer server() {
            ScramCredential credential = ScramCredential.derive(mechanism, scramPassword, salt(), iterations());
            return new ScramServer(mechanism, user -> user.equals("user") ? credential : null, this::serverNonce);
        }
    }

    static final Vector RFC_5802 = new Vector(ScramMechanism.SCRAM_SHA_1, "pencil",
            "n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL",
            "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096",
            "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=",
            "v=rmF9pqV8S7suAoZWja4dJRkFsKQ=");

    static final Vector RFC_7677 = new Vector(ScramMechanism.SCRAM_SHA_256, "pencil",
            "n,,n=user,r=rOprNGfwEbeRWgbNEkqO",
            "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
            "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
            "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");

    static final Vector MONGODB_SHA_1 = new Vector(ScramMechanism.SCRAM_SHA_1,
            ScramMechanism.SCRAM_SHA_1.mongoPassword("user", "pencil"),
            "n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL",
            "r=fyko+d2lbbFgONRv9qkxdawLHo+Vgk7qvUOKUwuWLIWg4l/9SraGMHEE,s=rQ9ZY3MntBeuP3E1TDVC4w==,i=10000",
            "c=biws,r=fyko+d2lbbFgONRv9qkxdawLHo+Vgk7qvUOKUwuWLIWg4l/9SraGMHEE,p=MC2T8BvbmWRckDw8oWl5IVghwCY=",
            "v=UMWeI25JD1yNYZRMpZ4VHvhZ9e0=");

    @Test
    void answersTheRfc5802ConversationExactly() throws Exception {
        assertServerConversation(RFC_5802);
    }

    @Test
    void answersTheRfc7677ConversationExactly() throws Exception {
        assertServerConversation(RFC_7677);
    }

    @Test
    void answersTheMongoDbSpecSha1ConversationWithTheLegacyPasswordDigest() throws Exception {
        assertThat(MONGODB_SHA_1.scramPassword()).isEqualTo("1c33006ec1ffd90f9cadcbcc0e118200");
        assertServerConversation(MONGODB_SHA_1);
    }

    @Test
    void theClientSideProducesTheVectorsProofAndAcceptsTheServerSignature() throws Exception {
        for (Vector v : new Vector[] {RFC_5802, RFC_7677, MONGODB_SHA_1}) {
            ScramClient client = new ScramClient(v.mechanism(), "user", v.scramPassword(), v.clientNonce());
            assertThat(text(client.first())).isEqualTo(v.clientFirst());
            assertThat(text(client.respond(bytes(v.serverFirst())))).isEqualTo(v.clientFinal());
            client.verify(bytes(v.serverFinal()));
        }
    }

    @Test
    void aWrongProofFailsAuthenticationAndTheExchangeStaysFailed() throws Exception {
        ScramServer server = RFC_7677.server();
        server.start(bytes(RFC_7677.clientFirst()));
        String forged = RFC_7677.clientFinal().replace("p=dHzb", "p=dHza");
        assertThatThrownBy(() -> server.finish(bytes(forged)))
                .isInstanceOf(ScramException.class).hasMessage("Authentication failed.")
                .matches(e -> !((ScramException) e).isProtocolError());
        assertThat(server.state()).isEqualTo(ScramServer.State.FAILED);
        assertThatThrownBy(() -> server.finish(bytes(RFC_7677.clientFinal()))).isInstanceOf(ScramException.class);
        assertThat(server.state()).isEqualTo(ScramServer.State.FAILED);
    }

    @Test
    void theRightProofForAnotherPasswordIsRefused() throws Exception {
        ScramCredential other = ScramCredential.derive(ScramMechanism.SCRAM_SHA_256, "not-pencil", RFC_7677.salt(), 4096);
        ScramServer server = new ScramServer(ScramMechanism.SCRAM_SHA_256, u -> other, RFC_7677::serverNonce);
        server.start(bytes(RFC_7677.clientFirst()));
        assertThatThrownBy(() -> server.finish(bytes(RFC_7677.clientFinal()))).hasMessage("Authentication failed.");
    }

    @Test
    void anUnknownUserFailsLikeAWrongPassword() {
        ScramServer server = new ScramServer(ScramMechanism.SCRAM_SHA_256, u -> null, () -> "abc");
        assertThatThrownBy(() -> server.start(bytes("n,,n=nobody,r=abc"))).hasMessage("Authentication failed.");
        assertThat(server.username()).isEqualTo("nobody");
    }

    @Test
    void aCredentialOfTheOtherMechanismIsNotAccepted() {
        ScramCredential sha1 = ScramCredential.derive(ScramMechanism.SCRAM_SHA_1, "pencil", RFC_5802.salt(), 4096);
        ScramServer server = new ScramServer(ScramMechanism.SCRAM_SHA_256, u -> sha1, () -> "abc");
        assertThatThrownBy(() -> server.start(bytes("n,,n=user,r=abc"))).hasMessage("Authentication failed.");
    }

    @Test
    void refusesChannelBindingMandatoryExtensionsAndAForeignAuthzid() {
        for (String first : new String[] {"p=tls-unique,,n=user,r=abc", "n,,m=ext,n=user,r=abc", "n,a=admin,n=user,r=abc",
                "n,,n=user", "x,,n=user,r=abc", "n,,n=us=41er,r=abc"}) {
            ScramServer server = RFC_7677.server();
            assertThatThrownBy(() -> server.start(bytes(first))).as(first)
                    .isInstanceOf(ScramException.class).matches(e -> ((ScramException) e).isProtocolError());
            assertThat(server.state()).isEqualTo(ScramServer.State.FAILED);
        }
    }

    @Test
    void acceptsTheUsersOwnAuthzidAndEscapedNames() throws Exception {
        ScramCredential credential = ScramCredential.derive(ScramMechanism.SCRAM_SHA_256, "pencil", RFC_7677.salt(), 4096);
        ScramServer server = new ScramServer(ScramMechanism.SCRAM_SHA_256, u -> u.equals("a,b=c") ? credential : null, () -> "xyz");
        server.start(bytes("n,a=a=2Cb=3Dc,n=a=2Cb=3Dc,r=abc"));
        assertThat(server.username()).isEqualTo("a,b=c");
    }

    @Test
    void refusesAFinalMessageWhoseNonceOrChannelBindingDiffers() throws Exception {
        ScramServer nonce = RFC_7677.server();
        nonce.start(bytes(RFC_7677.clientFirst()));
        assertThatThrownBy(() -> nonce.finish(bytes(RFC_7677.clientFinal().replace("k0,p=", "k1,p="))))
                .hasMessageContaining("nonce");

        ScramServer binding = RFC_7677.server();
        binding.start(bytes(RFC_7677.clientFirst()));
        assertThatThrownBy(() -> binding.finish(bytes(RFC_7677.clientFinal().replace("c=biws", "c=eSws"))))
                .hasMessageContaining("channel binding");
    }

    @Test
    void refusesMessagesOutOfOrder() {
        ScramServer server = RFC_7677.server();
        assertThatThrownBy(() -> server.finish(bytes(RFC_7677.clientFinal()))).hasMessageContaining("out of order");
        assertThat(server.state()).isEqualTo(ScramServer.State.FAILED);
    }

    @Test
    void credentialsKeepNoPasswordAndPrintNoKeys() {
        ScramCredential c = ScramCredential.forMongoUser(ScramMechanism.SCRAM_SHA_256, "agent", "s3cret-pw");
        assertThat(c.iterations()).isEqualTo(15_000);
        assertThat(c.salt()).hasSize(28);
        assertThat(c.toString()).doesNotContain("s3cret").contains("redacted");
        ScramCredential sha1 = ScramCredential.forMongoUser(ScramMechanism.SCRAM_SHA_1, "agent", "s3cret-pw");
        assertThat(sha1.iterations()).isEqualTo(10_000);
        assertThat(sha1.salt()).hasSize(16);
    }

    private static void assertServerConversation(Vector v) throws Exception {
        ScramServer server = v.server();
        assertThat(text(server.start(bytes(v.clientFirst())))).isEqualTo(v.serverFirst());
        assertThat(server.state()).isEqualTo(ScramServer.State.AWAITING_CLIENT_FINAL);
        assertThat(text(server.finish(bytes(v.clientFinal())))).isEqualTo(v.serverFinal());
        assertThat(server.state()).isEqualTo(ScramServer.State.AUTHENTICATED);
        assertThat(server.username()).isEqualTo("user");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
