package io.roboco.sandbox.mongocompat.scram;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The client side of one SCRAM exchange, for tests and for the image's start-up training run (which
 * authenticates against itself once so the crypto classes land in the class-data archive). Drivers
 * bring their own.
 */
public final class ScramClient {
    private final ScramMechanism mechanism;
    private final String scramPassword;
    private final String clientFirstBare;
    private final String clientNonce;
    private byte[] serverSignature;

    /** @param scramPassword the password already transformed ({@link ScramMechanism#mongoPassword}) */
    public ScramClient(ScramMechanism mechanism, String user, String scramPassword, String clientNonce) {
        this.mechanism = mechanism;
        this.scramPassword = scramPassword;
        this.clientNonce = clientNonce;
        this.clientFirstBare = "n=" + ScramMessages.encodeName(user) + ",r=" + clientNonce;
    }

    public byte[] first() {
        return ("n,," + clientFirstBare).getBytes(StandardCharsets.UTF_8);
    }

    /** server-first in, client-final (with the proof) out. */
    public byte[] respond(byte[] serverFirstMessage) throws ScramException {
        String serverFirst = ScramMessages.utf8(serverFirstMessage);
        String[] parts = serverFirst.split(",", -1);
        if (parts.length < 3) {
            throw ScramException.malformed("SCRAM server-first message is incomplete");
        }
        String nonce = ScramMessages.attribute(parts[0], 'r');
        if (!nonce.startsWith(clientNonce) || nonce.length() == clientNonce.length()) {
            throw ScramException.malformed("server nonce does not extend the client nonce");
        }
        byte[] salt = ScramMessages.base64(ScramMessages.attribute(parts[1], 's'));
        int iterations;
        try {
            iterations = Integer.parseInt(ScramMessages.attribute(parts[2], 'i'));
        } catch (NumberFormatException e) {
            throw ScramException.malformed("invalid iteration count");
        }
        String withoutProof = "c=biws,r=" + nonce;
        byte[] authMessage = (clientFirstBare + "," + serverFirst + "," + withoutProof).getBytes(StandardCharsets.UTF_8);
        byte[] salted = ScramCredential.saltedPassword(mechanism, scramPassword, salt, iterations);
        byte[] clientKey = ScramCredential.hmac(mechanism, salted, "Client Key");
        byte[] storedKey = ScramCredential.digest(mechanism, clientKey);
        byte[] proof = ScramCredential.xor(clientKey, ScramCredential.hmac(mechanism, storedKey, authMessage));
        serverSignature = ScramCredential.hmac(mechanism, ScramCredential.hmac(mechanism, salted, "Server Key"), authMessage);
        return (withoutProof + ",p=" + ScramMessages.base64(proof)).getBytes(StandardCharsets.UTF_8);
    }

    /** Checks the server-final message: the server proved it knows the credential too. */
    public void verify(byte[] serverFinalMessage) throws ScramException {
        String serverFinal = ScramMessages.utf8(serverFinalMessage);
        byte[] signature = ScramMessages.base64(ScramMessages.attribute(serverFinal, 'v'));
        if (serverSignature == null || !MessageDigest.isEqual(signature, serverSignature)) {
            throw ScramException.authenticationFailed();
        }
    }
}
