package io.roboco.sandbox.mongocompat.scram;

import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.util.Base64;

/** The RFC 5802 message grammar bits both sides share: attribute values, {@code saslname} escaping, strict UTF-8. */
final class ScramMessages {
    private ScramMessages() {
    }

    /** {@code saslname}: "=" and "," escaped as {@code =3D} and {@code =2C}. */
    static String encodeName(String name) {
        return name.replace("=", "=3D").replace(",", "=2C");
    }

    static String decodeName(String saslname) throws ScramException {
        StringBuilder out = new StringBuilder(saslname.length());
        for (int i = 0; i < saslname.length(); i++) {
            char c = saslname.charAt(i);
            if (c == '=') {
                if (saslname.startsWith("=3D", i)) {
                    out.append('=');
                } else if (saslname.startsWith("=2C", i)) {
                    out.append(',');
                } else {
                    throw ScramException.malformed("invalid escape in the SCRAM user name");
                }
                i += 2;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** The value of attribute {@code key} ({@code "r"} for {@code r=...}) in {@code part}, or a protocol error. */
    static String attribute(String part, char key) throws ScramException {
        if (part.length() < 2 || part.charAt(0) != key || part.charAt(1) != '=') {
            throw ScramException.malformed("expected SCRAM attribute '" + key + "'");
        }
        return part.substring(2);
    }

    static String utf8(byte[] message) throws ScramException {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(message)).toString();
        } catch (CharacterCodingException e) {
            throw ScramException.malformed("SCRAM message is not UTF-8");
        }
    }

    static byte[] base64(String value) throws ScramException {
        try {
            return Base64.getDecoder().decode(value);
        } catch (IllegalArgumentException e) {
            throw ScramException.malformed("invalid base64 in a SCRAM message");
        }
    }

    static String base64(byte[] value) {
        return Base64.getEncoder().encodeToString(value);
    }

    /** A nonce is printable ASCII without ','. */
    static boolean isNonce(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x21 || c > 0x7e || c == ',') {
                return false;
            }
        }
        return true;
    }
}
