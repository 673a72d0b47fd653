package io.roboco.sandbox.mongocompat.scram;

import java.text.Normalizer;

/**
 * SASLprep (RFC 4013) for SCRAM-SHA-256 passwords, as the drivers apply it on their side: non-ASCII
 * spaces become a space, "commonly mapped to nothing" characters go, the result is NFKC-normalised,
 * and control characters, private-use code points, surrogates and non-characters are refused. A
 * printable-ASCII password (what the sandbox generates) comes back unchanged.
 *
 * <p>Not the whole stringprep table set: unassigned code points are allowed (as RFC 4013 allows for
 * "stored strings" queries) and the bidirectional rule is not checked.
 */
public final class SaslPrep {
    private SaslPrep() {
    }

    /** The prepared string; throws {@link IllegalArgumentException} (naming no content) for a prohibited character. */
    public static String prepare(String value) {
        if (isPrintableAscii(value)) {
            return value;
        }
        StringBuilder mapped = new StringBuilder(value.length());
        value.codePoints().forEach(cp -> {
            if (mappedToNothing(cp)) {
                return;
            }
            mapped.appendCodePoint(Character.getType(cp) == Character.SPACE_SEPARATOR ? ' ' : cp);
        });
        String normalized = Normalizer.normalize(mapped, Normalizer.Form.NFKC);
        normalized.codePoints().forEach(cp -> {
            if (prohibited(cp)) {
                throw new IllegalArgumentException("the password holds a character SASLprep prohibits (U+"
                        + String.format("%04X", cp) + ")");
            }
        });
        return normalized;
    }

    private static boolean isPrintableAscii(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                return false;
            }
        }
        return true;
    }

    /** RFC 3454 table B.1. */
    private static boolean mappedToNothing(int cp) {
        return cp == 0x00AD || cp == 0x034F || cp == 0x1806 || (cp >= 0x180B && cp <= 0x180D) || (cp >= 0x200B && cp <= 0x200D)
                || cp == 0x2060 || (cp >= 0xFE00 && cp <= 0xFE0F) || cp == 0xFEFF;
    }

    /** Control characters (C.2), private use (C.3), non-characters (C.4), surrogates (C.5), and the other C tables' code points. */
    private static boolean prohibited(int cp) {
        int type = Character.getType(cp);
        return type == Character.CONTROL || type == Character.PRIVATE_USE || type == Character.SURROGATE
                || (cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE
                || (cp >= 0xFFF9 && cp <= 0xFFFD) || (cp >= 0x2FF0 && cp <= 0x2FFB)
                || (cp >= 0x200E && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x206A && cp <= 0x206F)
                || cp == 0x0340 || cp == 0x0341 || cp == 0xE0001 || (cp >= 0xE0020 && cp <= 0xE007F);
    }
}
