package io.roboco.sandbox.engine.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.SecretSource;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class ScramVerifierTest {
    private final SecretSource secrets = SecretSource.secure();

    @Test
    void scramVerifierHasThePostgresStoredForm() {
        String verifier = ScramVerifier.of(secrets.password());
        assertThat(verifier).matches("SCRAM-SHA-256\\$4096:[A-Za-z0-9+/=]{24}\\$[A-Za-z0-9+/=]{44}:[A-Za-z0-9+/=]{44}");
        assertThat(ScramVerifier.of("pencil")).isNotEqualTo(ScramVerifier.of("pencil")); // fresh salt each time
    }

    @Test
    void scramVerifierAgreesWithTheRfc7677TestVector() throws Exception {
        // RFC 7677 section 3: user "user", password "pencil", this salt, 4096 iterations.
        byte[] salt = Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ==");
        String verifier = ScramVerifier.of("pencil", salt, 4096);
        String[] keys = verifier.substring(verifier.lastIndexOf('$') + 1).split(":");
        byte[] storedKey = Base64.getDecoder().decode(keys[0]);
        byte[] serverKey = Base64.getDecoder().decode(keys[1]);
        String nonce = "rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
        String authMessage =
                "n=user,r=rOprNGfwEbeRWgbNEkqO,r=" + nonce + ",s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,c=biws,r=" + nonce;

        assertThat(Base64.getEncoder().encodeToString(hmac(serverKey, authMessage)))
                .isEqualTo("6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
        byte[] proof = Base64.getDecoder().decode("dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=");
        byte[] clientSignature = hmac(storedKey, authMessage);
        byte[] clientKey = new byte[proof.length];
        for (int i = 0; i < proof.length; i++) {
            clientKey[i] = (byte) (proof[i] ^ clientSignature[i]);
        }
        assertThat(MessageDigest.getInstance("SHA-256").digest(clientKey)).isEqualTo(storedKey);
    }

    private static byte[] hmac(byte[] key, String message) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(message.getBytes(StandardCharsets.US_ASCII));
    }
}
