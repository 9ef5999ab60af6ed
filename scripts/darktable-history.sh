# Sourced by the scripts that compare with darktable-cli (demosaic-quality.sh, denoise-peers.sh).
# darktable_history OPERATION MODVERSION PARAMS [ENABLED]: a darktable XMP sidecar whose history is that one module
# (its parameters as darktable's hex blob; ENABLED 1 by default), on standard output.
darktable_history() {
  cat <<XMP
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
 <rdf:Description rdf:about="" xmlns:darktable="http://darktable.sf.net/" darktable:xmp_version="5" darktable:history_end="1">
  <darktable:history><rdf:Seq>
   <rdf:li darktable:num="0" darktable:operation="$1" darktable:enabled="${4:-1}" darktable:modversion="$2"
    darktable:params="$3" darktable:multi_name="" darktable:multi_priority="0"/>
  </rdf:Seq></darktable:history>
 </rdf:Description></rdf:RDF></x:xmpmeta>
XMP
}
