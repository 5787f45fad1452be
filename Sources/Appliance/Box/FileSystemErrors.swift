import Foundation

/// What went wrong with a file or folder, in words for whoever gave its path.
enum FileSystemErrors {
    /// Whether `path` names a file (or anything else) where a folder is wanted.
    static func isNotAFolder(_ path: String) -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && !isFolder.boolValue
    }

    /// What the system said ("No such file or directory"), not Foundation's dump of the error.
    static func reason(_ error: any Error) -> String {
        let error = error as NSError
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? any Error {
            let posix = underlying as NSError
            if posix.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(posix.code))) }
        }
        return error.localizedDescription
    }
}
