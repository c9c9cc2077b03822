import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * Runs Kafka command-line tools' main classes again and again in one JVM, as
 * tests/support/tool_server.py asks on stdin: what a fresh JVM per run would print and exit
 * with, without a JVM start per run (~1.5 CPU-s each on the 2-core machine the suite runs on).
 * Works with Kafka 3.9 and 4.x alike: the exit hooks are found by reflection.
 *
 * Handshake: "ready\n" on the JVM's own stdout once the exit hooks are set.
 * Request: a line with the main class, a line with the argument count n, then n lines, one
 * argument each. Answer: a line "exitCode stdoutBytes stderrBytes", then those bytes (UTF-8).
 * System.out and System.err are set once, before any Kafka class loads, to streams that write to
 * the current run's buffers: what captured them at class init (log4j's console appender, Scala's
 * Console) writes there too. System.in is empty, as the fresh JVM's /dev/null. Exit.exit and
 * Exit.halt end a run with their code; an exception out of main is printed as the JVM's default
 * handler prints it ("Exception in thread "main" ..."), code 1. After the first exit of a run its
 * output is dropped and its code stands, as the process would have ended there.
 */
public final class ToolServer {
    /** Where System.out or System.err writes: the current run's buffer. */
    static final class Switch extends OutputStream {
        ByteArrayOutputStream target = new ByteArrayOutputStream();

        @Override public void write(int b) { target.write(b); }
        @Override public void write(byte[] b, int off, int len) { target.write(b, off, len); }
    }

    /** The current run's output and the code of its first Exit.exit or Exit.halt (null: none
     *  yet). A real JVM ends at the first exit: a tool that catches the exception the exit
     *  hook throws (TopicCommand's catch of Throwable around --version's Exit.exit(0)) goes
     *  on, but what it prints or returns after that is dropped and the first code stands. */
    static final Switch OUT = new Switch();
    static final Switch ERR = new Switch();
    static ByteArrayOutputStream runOut;
    static ByteArrayOutputStream runErr;
    static volatile Integer exitCode;
    static PrintStream toolOut;
    static PrintStream toolErr;

    static synchronized void exitCalled(int code) {
        if (exitCode == null) {
            toolOut.flush();
            toolErr.flush();
            exitCode = code;
            OUT.target = new ByteArrayOutputStream();  // after the exit: printed nowhere
            ERR.target = new ByteArrayOutputStream();
        }
        throw new ExitCalled(code);
    }

    static final class ExitCalled extends RuntimeException {
        final int code;

        ExitCalled(int code) {
            super(null, null, false, false);
            this.code = code;
        }
    }

    /** Kafka 4's org.apache.kafka.common.utils.internals.Exit and Kafka 3's
     *  org.apache.kafka.common.utils.Exit (which 3.9's Scala kafka.utils.Exit calls): each
     *  present one's exit and halt procedures throw ExitCalled. False when neither is there. */
    static boolean trapExits() throws Exception {
        boolean found = false;
        for (String name : new String[] {"org.apache.kafka.common.utils.internals.Exit",
                                         "org.apache.kafka.common.utils.Exit"}) {
            Class<?> exit;
            Class<?> procedure;
            try {
                exit = Class.forName(name);
                procedure = Class.forName(name + "$Procedure");
            } catch (ClassNotFoundException e) {
                continue;
            }
            Object thrower = Proxy.newProxyInstance(procedure.getClassLoader(), new Class<?>[] {procedure},
                (proxy, method, args) -> {
                    if (method.getDeclaringClass() == Object.class) {
                        switch (method.getName()) {
                            case "hashCode": return System.identityHashCode(proxy);
                            case "equals": return proxy == args[0];
                            default: return "ToolServer.exit";
                        }
                    }
                    exitCalled((Integer) args[0]);
                    return null;
                });
            exit.getMethod("setExitProcedure", procedure).invoke(null, thrower);
            exit.getMethod("setHaltProcedure", procedure).invoke(null, thrower);
            found = true;
        }
        return found;
    }

    public static void main(String[] args) throws Exception {
        PrintStream answers = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        InputStream requests = System.in;
        toolOut = new PrintStream(OUT, true, StandardCharsets.UTF_8);
        toolErr = new PrintStream(ERR, true, StandardCharsets.UTF_8);
        System.setOut(toolOut);
        System.setErr(toolErr);
        System.setIn(new ByteArrayInputStream(new byte[0]));
        if (!trapExits()) {
            answers.print("no Kafka Exit class on the classpath\n");
            answers.flush();
            return;
        }
        answers.print("ready\n");
        answers.flush();
        Map<String, Method> mains = new HashMap<>();
        DataInputStream in = new DataInputStream(requests);
        String mainClass;
        while ((mainClass = readLine(in)) != null) {
            String[] toolArgs = new String[Integer.parseInt(readLine(in).trim())];
            for (int i = 0; i < toolArgs.length; i++) {
                toolArgs[i] = readLine(in);
            }
            synchronized (ToolServer.class) {
                runOut = OUT.target = new ByteArrayOutputStream();
                runErr = ERR.target = new ByteArrayOutputStream();
                exitCode = null;
            }
            int code = 0;
            try {
                Method main = mains.get(mainClass);
                if (main == null) {
                    main = Class.forName(mainClass).getMethod("main", String[].class);
                    mains.put(mainClass, main);
                }
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
            } catch (ReflectiveOperationException e) {
                toolErr.print("Error: Could not find or load main class " + mainClass + "\n");
                code = 1;
            }
            Thread.interrupted();  // a run's interrupt must not reach the next one
            byte[] o;
            byte[] e;
            synchronized (ToolServer.class) {
                toolOut.flush();
                toolErr.flush();
                if (exitCode != null) {
                    code = exitCode;
                }
                o = runOut.toByteArray();
                e = runErr.toByteArray();
            }
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
