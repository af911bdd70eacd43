// Compiled from TestNft.sol beside this file with solc 0.8.28 (solc-js), optimizer on:
//   bunx solc@0.8.28 --optimize --bin --abi -o out test/support/contracts/TestNft.sol
// Committed so tests need no compiler; recompile and paste when the source changes.

export const testNftAbi = [
  {
    "anonymous": false,
    "inputs": [
      {
        "indexed": true,
        "internalType": "address",
        "name": "owner",
        "type": "address"
      },
      {
        "indexed": true,
        "internalType": "address",
        "name": "operator",
        "type": "address"
      },
      {
        "indexed": false,
        "internalType": "bool",
        "name": "approved",
        "type": "bool"
      }
    ],
    "name": "ApprovalForAll",
    "type": "event"
  },
  {
    "anonymous": false,
    "inputs": [
      {
        "indexed": true,
        "internalType": "address",
        "name": "from",
        "type": "address"
      },
      {
        "indexed": true,
        "internalType": "address",
        "name": "to",
        "type": "address"
      },
      {
        "indexed": true,
        "internalType": "uint256",
        "name": "tokenId",
        "type": "uint256"
      }
    ],
    "name": "Transfer",
    "type": "event"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "",
        "type": "address"
      }
    ],
    "name": "balanceOf",
    "outputs": [
      {
        "internalType": "uint256",
        "name": "",
        "type": "uint256"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "uint256",
        "name": "tokenId",
        "type": "uint256"
      }
    ],
    "name": "burn",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "",
        "type": "address"
      },
      {
        "internalType": "address",
        "name": "",
        "type": "address"
      }
    ],
    "name": "isApprovedForAll",
    "outputs": [
      {
        "internalType": "bool",
        "name": "",
        "type": "bool"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "to",
        "type": "address"
      },
      {
        "internalType": "uint256",
        "name": "tokenId",
        "type": "uint256"
      }
    ],
    "name": "mint",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "name",
    "outputs": [
      {
        "internalType": "string",
        "name": "",
        "type": "string"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "uint256",
        "name": "",
        "type": "uint256"
      }
    ],
    "name": "ownerOf",
    "outputs": [
      {
        "internalType": "address",
        "name": "",
        "type": "address"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "operator",
        "type": "address"
      },
      {
        "internalType": "bool",
        "name": "approved",
        "type": "bool"
      }
    ],
    "name": "setApprovalForAll",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "symbol",
    "outputs": [
      {
        "internalType": "string",
        "name": "",
        "type": "string"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "from",
        "type": "address"
      },
      {
        "internalType": "address",
        "name": "to",
        "type": "address"
      },
      {
        "internalType": "uint256",
        "name": "tokenId",
        "type": "uint256"
      }
    ],
    "name": "transferFrom",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  }
] as const;

export const testNftBytecode: `0x${string}` = `0x${[
  "6080604052348015600e575f5ffd5b506107428061001c5f395ff3fe608060405234801561000f575f5ffd5b5060043610610090575f3560e01c8063",
  "6352211e116100635780636352211e1461010c57806370a082311461014c57806395d89b4114610179578063a22cb4651461019c578063e985e9c514",
  "6101af575f5ffd5b806306fdde031461009457806323b872dd146100d157806340c10f19146100e657806342966c68146100f9575b5f5ffd5b6100bb",
  "6040518060400160405280600881526020016715195cdd0813919560c21b81525081565b6040516100c89190610579565b60405180910390f35b6100",
  "e46100df3660046105c9565b6101ec565b005b6100e46100f4366004610603565b61036d565b6100e461010736600461062b565b61043f565b610134",
  "61011a36600461062b565b5f602081905290815260409020546001600160a01b031681565b6040516001600160a01b0390911681526020016100c856",
  "5b61016b61015a366004610642565b60016020525f908152604090205481565b6040519081526020016100c8565b6100bb6040518060400160405280",
  "60048152602001631513919560e21b81525081565b6100e46101aa366004610662565b61050e565b6101dc6101bd36600461069b565b600260209081",
  "525f928352604080842090915290825290205460ff1681565b60405190151581526020016100c8565b5f818152602081905260409020546001600160",
  "a01b038481169116146102415760405162461bcd60e51b815260206004820152600560248201526437bbb732b960d91b60448201526064015b604051",
  "80910390fd5b336001600160a01b038416148061027a57506001600160a01b0383165f90815260026020908152604080832033845290915290205460",
  "ff165b6102b15760405162461bcd60e51b8152602060048201526008602482015267185c1c1c9bdd985b60c21b6044820152606401610238565b5f81",
  "81526020818152604080832080546001600160a01b0319166001600160a01b0387811691909117909155861683526001918290528220805491929091",
  "6102fa9084906106e0565b90915550506001600160a01b0382165f90815260016020819052604082208054919290916103299084906106f9565b9091",
  "55505060405181906001600160a01b0380851691908616907fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef905f90",
  "a4505050565b5f818152602081905260409020546001600160a01b0316156103ba5760405162461bcd60e51b81526020600482015260066024820152",
  "651b5a5b9d195960d21b6044820152606401610238565b5f8181526020818152604080832080546001600160a01b0319166001600160a01b03871690",
  "8117909155835260019182905282208054919290916103ff9084906106f9565b909155505060405181906001600160a01b038416905f907fddf252ad",
  "1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef908290a45050565b5f818152602081905260409020546001600160a01b031633",
  "811461048d5760405162461bcd60e51b815260206004820152600560248201526437bbb732b960d91b6044820152606401610238565b5f8281526020",
  "818152604080832080546001600160a01b03191690556001600160a01b038416835260019182905282208054919290916104ce9084906106e0565b90",
  "9155505060405182905f906001600160a01b038416907fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef908390a450",
  "50565b335f8181526002602090815260408083206001600160a01b03871680855290835292819020805460ff19168615159081179091559051908152",
  "9192917f17307eab39ab6107e8899845ad3d59bd9653f200f220920489ca2b5937696c31910160405180910390a35050565b602081525f8251806020",
  "8401528060208501604085015e5f604082850101526040601f19601f83011684010191505092915050565b80356001600160a01b03811681146105c4",
  "575f5ffd5b919050565b5f5f5f606084860312156105db575f5ffd5b6105e4846105ae565b92506105f2602085016105ae565b929592945050506040",
  "919091013590565b5f5f60408385031215610614575f5ffd5b61061d836105ae565b946020939093013593505050565b5f6020828403121561063b57",
  "5f5ffd5b5035919050565b5f60208284031215610652575f5ffd5b61065b826105ae565b9392505050565b5f5f60408385031215610673575f5ffd5b",
  "61067c836105ae565b915060208301358015158114610690575f5ffd5b809150509250929050565b5f5f604083850312156106ac575f5ffd5b6106b5",
  "836105ae565b91506106c3602084016105ae565b90509250929050565b634e487b7160e01b5f52601160045260245ffd5b818103818111156106f357",
  "6106f36106cc565b92915050565b808201808211156106f3576106f36106cc56fea2646970667358221220d44fa8c0ac4aaa1cd7e4d015f1fa577989",
  "d845c5c81ceca97e90a761875d2b2d64736f6c634300081c0033"
].join("")}`;
