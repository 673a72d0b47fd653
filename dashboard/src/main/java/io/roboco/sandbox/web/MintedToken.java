package io.roboco.sandbox.web;

/**
 * A client token just minted, for the one page that shows it (the answer to the mint); held nowhere else.
 * {@link #toString()} never shows the token.
 */
public record MintedToken(String owner, String token) {
    @Override
    public String toString() {
        return "MintedToken[owner=" + owner + ", token=<shown once>]";
    }
}
