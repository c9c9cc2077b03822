import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.utils.internals.Exit;

/**
 * Runs one Kafka command-line tool's main class (args[0], of Kafka 4.4) again and again in one
 * JVM, as tests/support/tool_server.py asks on stdin: what a fresh JVM per run would print and
 * exit with, without a JVM start per run (kafka-storage's side-by-side tests run it ~90 times).
 *
 * Request: a line with the argument count n, then n lines, one argument each. Answer, on the
 * JVM's own stdout: a line "exitCode stdoutBytes stderrBytes", then those bytes (UTF-8).
 * System.out and System.err are set once, before any Kafka class loads, to streams that write to
 * the current run's buffers: what captured them at class init (log4j's console appender, Scala's
 * Console) writes there too. Exit.exit ends a run with its code; an exception out of main is
 * printed as the JVM's default handler prints it ("Exception in thread "main" ..."), code 1.
 */
public final class ToolServer {
    /** Where System.out or System.err writes: the current run's buffer. */
    static final class Switch extends OutputStream {
        ByteArrayOutputStream target = new ByteArrayOutputStream();

        @Override public void write(int b) { target.write(b); }
        @Override public void write(byte[] b, int off, int len) { target.write(b, off, len); }
    }

    static final class ExitCalled extends RuntimeException {
        final int code;

        ExitCalled(int code) {
            super(null, null, false, false);
            this.code = code;
        }
    }

    public static void main(String[] args) throws Exception {
        PrintStream answers = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        Switch out = new Switch();
        Switch err = new Switch();
        PrintStream toolOut = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream toolErr = new PrintStream(err, true, StandardCharsets.UTF_8);
        System.setOut(toolOut);
        System.setErr(toolErr);
        Exit.setExitProcedure((code, message) -> { throw new ExitCalled(code); });
        Exit.setHaltProcedure((code, message) -> { throw new ExitCalled(code); });
        Method main = Class.forName(args[0]).getMethod("main", String[].class);
        DataInputStream in = new DataInputStream(System.in);
        String line;
        while ((line = readLine(in)) != null) {
            String[] toolArgs = new String[Integer.parseInt(line.trim())];
            for (int i = 0; i < toolArgs.length; i++) {
                toolArgs[i] = readLine(in);
            }
            out.target = new ByteArrayOutputStream();
            err.target = new ByteArrayOutputStream();
            int code = 0;
            try {
                main.invoke(null, (Object) toolArgs);
            } catch (InvocationTargetException e) {
                Throwable cause = e.getCause();
                if (cause instanceof ExitCalled) {
                    code = ((ExitCalled) cause).code;
                } else {
                    toolErr.print("Exception in thread \"main\" ");
                    cause.printStackTrace(toolErr);
                    code = 1;
                }
            }
            toolOut.flush();
            toolErr.flush();
            byte[] o = out.target.toByteArray();
            byte[] e = err.target.toByteArray();
            answers.print(code + " " + o.length + " " + e.length + "\n");
            answers.write(o, 0, o.length);
            answers.write(e, 0, e.length);
            answers.flush();
        }
    }

    /** One UTF-8 line without its newline; null at the end of input. */
    private static String readLine(DataInputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != -1 && b != '\n') {
            line.write(b);
        }
        return b == -1 && line.size() == 0 ? null : line.toString(StandardCharsets.UTF_8);
    }
}
