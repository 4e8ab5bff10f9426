// SPDX-License-Identifier: MIT
// Writes one file, the java.io way (FileNotFoundException: "/p (reason)")
// or the java.nio way (FileSystemException "/p: reason", or
// AccessDeniedException "/p" for EACCES).
//   java -cp . W io|nio PATH
import java.io.FileOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

public class W {
	public static void main(String[] a) throws Exception {
		if (a[0].equals("io"))
			new FileOutputStream(a[1]).close();
		else
			Files.writeString(Path.of(a[1]), "x");
	}
}
