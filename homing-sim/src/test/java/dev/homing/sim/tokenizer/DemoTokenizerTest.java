package dev.homing.sim.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.sim.model.PseudoWords;
import dev.homing.tokenizer.HuggingFaceTokenizer;
import dev.homing.tokenizer.Tokenizers;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/**
 * The demo tokenizer homing-tokenizer ships is the one {@link DemoTokenizerTrainer} trains. Run with
 * {@code -Ddemo-tokenizer.write=true} to write it again.
 */
class DemoTokenizerTest {

    @Test
    void theCheckedInDemoTokenizerIsWhatTheTrainerWrites() throws IOException {
        String trained = DemoTokenizerTrainer.train();
        if (Boolean.getBoolean("demo-tokenizer.write")) {
            Files.writeString(DemoTokenizerTrainer.OUTPUT, trained);
        }
        try (InputStream shipped = Tokenizers.class.getResourceAsStream("demo/tokenizer.json")) {
            assertThat(shipped).as("the demo tokenizer.json on the class path").isNotNull();
            assertThat(new String(shipped.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(trained);
        }
        assertThat(trained.length()).as("small enough to ship").isLessThan(512 * 1024);
    }

    @Test
    void theDemoTokenizerReadsTheEnginesAnswersBackInFewerTokensThanCharactersAndLosesNothing() {
        try (HuggingFaceTokenizer demo = Tokenizers.demo()) {
            String answer = PseudoWords.text(12_345, 0, 64, 64);
            int[] tokens = demo.encodeText(answer);

            assertThat(demo.decode(tokens)).isEqualTo(answer);
            System.out.println("demo: " + tokens.length + " tokens for " + answer.length() + " chars");
        }
    }
}
