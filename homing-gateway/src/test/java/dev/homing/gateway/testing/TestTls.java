package dev.homing.gateway.testing;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;

/** The test certificate in {@code tls/} (CN=localhost, IP 127.0.0.1) and its key, and a client context trusting it. */
public final class TestTls {

    private TestTls() {
    }

    /** The path of {@code tls/name}: {@code cert.pem} or {@code key.pem}. */
    public static String file(String name) throws URISyntaxException {
        return Path.of(TestTls.class.getResource("/tls/" + name).toURI()).toString();
    }

    public static SSLContext trustingTheTestCertificate() throws Exception {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        try (InputStream in = TestTls.class.getResourceAsStream("/tls/cert.pem")) {
            store.setCertificateEntry("homing-test", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(store);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return context;
    }
}
