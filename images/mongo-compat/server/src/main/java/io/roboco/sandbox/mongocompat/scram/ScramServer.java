package io.roboco.sandbox.mongocompat.scram;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The server side of one SCRAM exchange (RFC 5802; SHA-256 per RFC 7677), as a small state machine:
 *
 * <pre>
 *   AWAITING_CLIENT_FIRST --start(client-first)--> AWAITING_CLIENT_FINAL --finish(client-final)--> AUTHENTICATED
 *            \________________________ any error ________________________/--> FAILED (for good)
 * </pre>
 *
 * No channel binding (a client asking for it with {@code p=} is refused; {@code y} and {@code n} are accepted),
 * no authorization identity other than the user itself, no mandatory extensions. The proof is checked in
 * constant time against {@code StoredKey}; the server never holds the password or {@code ClientKey}.
 */
public final class ScramServer {
    /** Where the exchange is. */
    public enum State { AWAITING_CLIENT_FIRST, AWAITING_CLIENT_FINAL, AUTHENTICATED, FAILED }

    private static final SecureRandom RANDOM = new SecureRandom();

    private final ScramMechanism mechanism;
    private final Function<String, ScramCredential> credentials;
    private final Supplier<String> serverNonces;
    private State state = State.AWAITING_CLIENT_FIRST;
    private String username;
    private String gs2Header;
    private String clientFirstBare;
    private String serverFirst;
    private String nonce;
    private ScramCredential credential;

    /**
     * @param credentials  the user's credential for this mechanism by user name, or null when there is none
     * @param serverNonces the server's nonce part (printable, no ','); {@link #randomNonce()} outside tests
     */
    public ScramServer(ScramMechanism mechanism, Function<String, ScramCredential> credentials, Supplier<String> serverNonces) {
        this.mechanism = mechanism;
        this.credentials = credentials;
        this.serverNonces = serverNonces;
    }

    public ScramServer(ScramMechanism mechanism, Function<String, ScramCredential> credentials) {
        this(mechanism, credentials, ScramServer::randomNonce);
    }

    /** 24 random bytes, base64: what mongod appends to the client's nonce. */
    public static String randomNonce() {
        byte[] bytes = new byte[24];
        RANDOM.nextBytes(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }

    public ScramMechanism mechanism() {
        return mechanism;
    }

    public State state() {
        return state;
    }

    /** The user named in the client-first message (known after {@link #start}); authenticated only once {@link #state()} says so. */
    public String username() {
        return username;
    }

    /** client-first-message in, server-first-message out. */
    public byte[] start(byte[] clientFirstMessage) throws ScramException {
        expect(State.AWAITING_CLIENT_FIRST);
        try {
            String message = ScramMessages.utf8(clientFirstMessage);
            parseClientFirst(message);
            credential = credentials.apply(username);
            if (credential == null || credential.mechanism() != mechanism) {
                throw ScramException.authenticationFailed();
            }
            String serverPart = serverNonces.get();
            if (!ScramMessages.isNonce(serverPart)) {
                throw new IllegalStateException("server nonce must be printable ASCII without ','");
            }
            nonce = nonce + serverPart;
            serverFirst = "r=" + nonce + ",s=" + ScramMessages.base64(credential.salt()) + ",i=" + credential.iterations();
            state = State.AWAITING_CLIENT_FINAL;
            return serverFirst.getBytes(StandardCharsets.UTF_8);
        } catch (ScramException | RuntimeException e) {
            state = State.FAILED;
            throw e;
        }
    }

    /** client-final-message in, server-final-message ({@code v=ServerSignature}) out; the user is then authenticated. */
    public byte[] finish(byte[] clientFinalMessage) throws ScramException {
        expect(State.AWAITING_CLIENT_FINAL);
        try {
            String message = ScramMessages.utf8(clientFinalMessage);
            int proofAt = message.lastIndexOf(",p=");
            if (proofAt < 0) {
                throw ScramException.malformed("SCRAM client-final message has no proof");
            }
            String withoutProof = message.substring(0, proofAt);
            byte[] proof = ScramMessages.base64(message.substring(proofAt + 3));
            String[] parts = withoutProof.split(",", -1);
            if (parts.length < 2) {
                throw ScramException.malformed("SCRAM client-final message is incomplete");
            }
            byte[] channelBinding = ScramMessages.base64(ScramMessages.attribute(parts[0], 'c'));
            if (!MessageDigest.isEqual(channelBinding, gs2Header.getBytes(StandardCharsets.UTF_8))) {
                throw ScramException.malformed("SCRAM channel binding does not match the client-first message");
            }
            if (!ScramMessages.attribute(parts[1], 'r').equals(nonce)) {
                throw ScramException.malformed("SCRAM nonce does not match");
            }
            byte[] authMessage = (clientFirstBare + "," + serverFirst + "," + withoutProof).getBytes(StandardCharsets.UTF_8);
            byte[] clientSignature = ScramCredential.hmac(mechanism, credential.storedKey(), authMessage);
            if (proof.length != clientSignature.length) {
                throw ScramException.authenticationFailed();
            }
            byte[] clientKey = ScramCredential.xor(proof, clientSignature);
            if (!MessageDigest.isEqual(ScramCredential.digest(mechanism, clientKey), credential.storedKey())) {
                throw ScramException.authenticationFailed();
            }
            byte[] serverSignature = ScramCredential.hmac(mechanism, credential.serverKey(), authMessage);
            state = State.AUTHENTICATED;
            return ("v=" + ScramMessages.base64(serverSignature)).getBytes(StandardCharsets.UTF_8);
        } catch (ScramException | RuntimeException e) {
            state = State.FAILED;
            throw e;
        }
    }

    private void parseClientFirst(String message) throws ScramException {
        // gs2-header = cbind-flag "," [ authzid ] ","
        int first = message.indexOf(',');
        int second = first < 0 ? -1 : message.indexOf(',', first + 1);
        if (second < 0) {
            throw ScramException.malformed("SCRAM client-first message has no GS2 header");
        }
        String flag = message.substring(0, first);
        if (flag.startsWith("p=")) {
            throw ScramException.malformed("SCRAM channel binding is not supported");
        }
        if (!flag.equals("n") && !flag.equals("y")) {
            throw ScramException.malformed("invalid SCRAM channel binding flag");
        }
        String authzid = message.substring(first + 1, second);
        gs2Header = message.substring(0, second + 1);
        clientFirstBare = message.substring(second + 1);
        String[] parts = clientFirstBare.split(",", -1);
        if (parts.length < 2) {
            throw ScramException.malformed("SCRAM client-first message is incomplete");
        }
        if (parts[0].startsWith("m=")) {
            throw ScramException.malformed("SCRAM mandatory extensions are not supported");
        }
        username = ScramMessages.decodeName(ScramMessages.attribute(parts[0], 'n'));
        if (username.isEmpty()) {
            throw ScramException.malformed("SCRAM user name is empty");
        }
        if (!authzid.isEmpty() && !ScramMessages.decodeName(ScramMessages.attribute(authzid, 'a')).equals(username)) {
            throw ScramException.malformed("SCRAM authorization identity must be the user itself");
        }
        nonce = ScramMessages.attribute(parts[1], 'r');
        if (!ScramMessages.isNonce(nonce)) {
            throw ScramException.malformed("invalid SCRAM client nonce");
        }
    }

    private void expect(State expected) throws ScramException {
        if (state != expected) {
            State was = state;
            state = State.FAILED;
            throw ScramException.malformed("SCRAM message out of order (exchange was " + was + ")");
        }
    }
}
